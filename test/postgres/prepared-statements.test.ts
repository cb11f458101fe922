// Kysely's PostgreSQL connections run each statement text as a named prepared statement
// (store/dialects/postgres-prepared.ts): parsed once per connection, then only bound and
// executed. Past the bound on names, statements run unnamed.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { namingPool } from '../../src/store/dialects/postgres-prepared.ts'
import { storeTargets } from '../support/stores.ts'

const target = storeTargets.find((t) => t.name === 'postgres')

describe('[postgres] statements prepared once per connection', { skip: target === undefined }, () => {
  let database: { databaseUrl: string; drop(): Promise<void> }
  // One pool (of one connection) per test: names are given per pool, as the store has one.
  const pools: pg.Pool[] = []
  const onePool = () => {
    const pool = new pg.Pool({ connectionString: database.databaseUrl, max: 1 })
    // An idle connection ended by the server (the database dropped while a pool winds down, under
    // load) is reported on the pool; unhandled, that event would fail whichever test runs then.
    pool.on('error', () => {})
    pools.push(pool)
    return pool
  }

  before(async () => {
    database = await (target as NonNullable<typeof target>).create()
  })
  after(async () => {
    await Promise.all(pools.map((pool) => pool.end()))
    await database.drop()
  })

  const prepared = async (client: { query: (text: string, values: unknown[]) => Promise<unknown> }) =>
    (
      (await client.query('select statement from pg_prepared_statements order by statement', [])) as {
        rows: { statement: string }[]
      }
    ).rows.map((row) => row.statement)

  it('names a text on first use, reuses it with other values, and runs texts past the bound unnamed', async () => {
    // Two names at most: the listing of prepared statements below takes the second.
    const naming = namingPool(onePool(), 2)
    const client = await naming.connect()
    try {
      const one = 'select $1::int + 1 as n'
      assert.deepEqual((await client.query<{ n: number }>(one, [1])).rows, [{ n: 2 }])
      assert.deepEqual((await client.query<{ n: number }>(one, [41])).rows, [{ n: 42 }])
      assert.deepEqual(await prepared(client), [
        'select $1::int + 1 as n',
        'select statement from pg_prepared_statements order by statement',
      ])
      const past = 'select $1::int * 2 as n'
      assert.deepEqual((await client.query<{ n: number }>(past, [21])).rows, [{ n: 42 }])
      assert.equal((await prepared(client)).includes(past), false, 'a text past the bound is not kept')
    } finally {
      client.release()
    }
  })

  it('keeps working after a statement fails, whether in its parsing or in its run', async () => {
    const naming = namingPool(onePool())
    const client = await naming.connect()
    try {
      const unknownTable = 'select n from not_yet_there where n = $1::int'
      await assert.rejects(client.query(unknownTable, [1]), /does not exist/)
      await client.query('create table not_yet_there (n int)', [])
      await client.query('insert into not_yet_there values (7)', [])
      assert.deepEqual((await client.query(unknownTable, [7])).rows, [{ n: 7 }], 'parsed again')
      const failing = 'select 1 / $1::int as n'
      await assert.rejects(client.query(failing, [0]), /division by zero/)
      assert.deepEqual((await client.query<{ n: number }>(failing, [1])).rows, [{ n: 1 }])
    } finally {
      client.release()
    }
  })

  it('runs a statement unnamed from then on when a new column changes its result, retrying it outside a transaction', async () => {
    const naming = namingPool(onePool())
    const client = await naming.connect()
    try {
      await client.query('create table widened (a int)', [])
      await client.query('insert into widened values (1)', [])
      const all = 'select * from widened where a = $1::int'
      assert.deepEqual((await client.query(all, [1])).rows, [{ a: 1 }])
      // As another instance's migration would.
      await client.query('alter table widened add column b int default 2', [])
      assert.deepEqual((await client.query(all, [1])).rows, [{ a: 1, b: 2 }], 'retried at once, unnamed')
      assert.deepEqual((await client.query(all, [1])).rows, [{ a: 1, b: 2 }])

      const inside = 'select * from widened where b = $1::int'
      assert.deepEqual((await client.query(inside, [2])).rows, [{ a: 1, b: 2 }])
      await client.query('alter table widened add column c int default 3', [])
      await client.query('begin', [])
      await assert.rejects(client.query(inside, [2]), /cached plan must not change result type/)
      await client.query('rollback', [])
      assert.deepEqual((await client.query(inside, [2])).rows, [{ a: 1, b: 2, c: 3 }], 'unnamed from then on')
    } finally {
      client.release()
    }
  })
})

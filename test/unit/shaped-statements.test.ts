import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely'
import { shapedStatements } from '../../src/store/compiled.ts'
import type { Database } from '../../src/store/schema.ts'

/** A Kysely that compiles for `flavour` and runs nothing. */
function compiling(flavour: 'postgres' | 'sqlite') {
  const postgres = flavour === 'postgres'
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => (postgres ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (postgres ? new PostgresIntrospector(db) : new SqliteIntrospector(db)),
      createQueryCompiler: () => (postgres ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    },
  })
}

describe('shapedStatements', () => {
  it('builds each shape once and fills its slots with each call’s values, keeping the builder’s own', () => {
    const db = compiling('postgres')
    const statements = shapedStatements()
    let builds = 0
    const rename = (id: number, title: string, versions: number[]) =>
      statements(db, `versions ${versions.length}`, [id, title, ...versions], (slot) => {
        builds++
        return db
          .updateTable('events')
          .set((eb) => ({ title: slot<string>(1), version: eb('version', '+', 1) }))
          .where('id', '=', slot<number>(0))
          .where(
            'version',
            'in',
            versions.map((_, i) => slot<number>(2 + i)),
          )
      })

    const first = rename(7, 'first', [3])
    const second = rename(8, 'second', [4])
    assert.equal(builds, 1, 'the same shape is built once')
    assert.equal(second.sql, first.sql)
    assert.equal(
      first.sql,
      'update "events" set "title" = $1, "version" = "version" + $2 where "id" = $3 and "version" in ($4)',
    )
    assert.deepEqual(first.parameters, ['first', 1, 7, 3])
    assert.deepEqual(second.parameters, ['second', 1, 8, 4], 'the constant 1 is the builder’s own')

    const two = rename(9, 'third', [5, 6])
    assert.equal(builds, 2, 'another shape is built anew')
    assert.match(two.sql, /in \(\$4, \$5\)$/)
    assert.deepEqual(two.parameters, ['third', 1, 9, 5, 6])
  })

  it('keeps one form per database, so each dialect gets its own SQL', () => {
    const statements = shapedStatements()
    const find = (db: Kysely<Database>, id: number) =>
      statements(db, 'find', [id], (slot) =>
        db.selectFrom('events').select('id').where('id', '=', slot<number>(0)),
      )
    assert.equal(find(compiling('postgres'), 1).sql, 'select "id" from "events" where "id" = $1')
    const sqlite = find(compiling('sqlite'), 2)
    assert.equal(sqlite.sql, 'select "id" from "events" where "id" = ?')
    assert.deepEqual(sqlite.parameters, [2])
  })

  it('stops keeping new shapes past its limit, and still answers them right', () => {
    const db = compiling('postgres')
    const statements = shapedStatements()
    let builds = 0
    const among = (ids: number[]) =>
      statements(db, `ids ${ids.length}`, ids, (slot) => {
        builds++
        return db
          .selectFrom('events')
          .select('id')
          .where(
            'id',
            'in',
            ids.map((_, i) => slot<number>(i)),
          )
      })
    for (let n = 1; n <= 100; n++) among(Array.from({ length: n }, (_, i) => i + 1))
    assert.equal(builds, 100)
    among([1])
    assert.equal(builds, 100, 'an early shape is still kept')
    const late = among(Array.from({ length: 100 }, (_, i) => i + 1))
    assert.equal(builds, 101, 'a shape past the limit is built every time')
    assert.deepEqual(
      late.parameters,
      Array.from({ length: 100 }, (_, i) => i + 1),
    )
  })
})

// What the PostgreSQL store does when the database is slow, busy, gone or restarted (CONTRACT.md
// §5: 503 with Retry-After, and the service recovers by itself), and the races only a shared
// server can have.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { buildApp } from '../../src/app.ts'
import { parseConfig } from '../../src/config.ts'
import { DomainError } from '../../src/domain/errors.ts'
import { openPostgres, type PostgresOptions } from '../../src/store/dialects/postgres.ts'
import { KyselyStore } from '../../src/store/kysely-store.ts'
import { openStore } from '../../src/store/open-store.ts'
import { postgres, postgresSkipReason } from '../support/stores.ts'

const isUnavailable = (error: unknown) => error instanceof DomainError && error.code === 'unavailable'

describe('[postgres] when the database cannot answer', () => {
  it('answers 503 with Retry-After and a problem body when the server refuses connections', async () => {
    // Port 1 on loopback: nothing listens, so the connection is refused at once.
    const databaseUrl = 'postgres://postgres@127.0.0.1:1/nothing'
    const store = openStore(databaseUrl)
    const app = buildApp({ config: parseConfig({ logLevel: 'silent', databaseUrl }), store })
    try {
      await assert.rejects(store.ping(), isUnavailable)
      for (const url of ['/events', '/events/1', '/health/ready']) {
        const res = await app.inject({ method: 'GET', url })
        assert.equal(res.statusCode, 503, url)
        assert.equal(res.headers['retry-after'], '5', url)
        assert.equal(res.headers['content-type'], 'application/problem+json', url)
        assert.doesNotMatch(res.body, /ECONNREFUSED|127\.0\.0\.1|postgres/i, url)
      }
    } finally {
      await app.close()
      await store.close()
    }
  })
})

describe('[postgres] store behaviour on a live server', { skip: postgresSkipReason ?? false }, () => {
  let database: { databaseUrl: string; drop(): Promise<void> }
  let setup: KyselyStore
  let locker: pg.Client
  const opened: KyselyStore[] = []
  const open = (options: PostgresOptions = {}) => {
    const store = new KyselyStore(openPostgres(database.databaseUrl, options))
    opened.push(store)
    return store
  }

  before(async () => {
    if (!postgres) return
    database = await postgres.create()
    setup = open()
    await setup.migrate()
    const { id } = await setup.createLocation({ name: 'Hall', address: 'Street 1' })
    await setup.createEvent({ title: 'Locked', date: Date.UTC(2027, 0, 1), locationId: id })
    locker = new pg.Client({ connectionString: database.databaseUrl, connectionTimeoutMillis: 3_000 })
    await locker.connect()
  })

  after(async () => {
    await locker?.end()
    for (const store of opened) await store.close()
    await database?.drop()
  })

  /** Holds the row lock of event 1 in another session while `work` runs. */
  async function whileLocked<T>(work: () => Promise<T>): Promise<T> {
    await locker.query('begin')
    await locker.query('select id from events where id = 1 for update')
    try {
      return await work()
    } finally {
      await locker.query('rollback')
    }
  }

  it('returns ids, dates and counts as numbers', async () => {
    const event = await setup.getEvent(1)
    assert.equal(typeof event?.id, 'number')
    assert.equal(event?.date, Date.UTC(2027, 0, 1))
    const page = await setup.listEvents({ page: 1, perPage: 10 })
    assert.equal(page.total, 1)
  })

  it('closes its connections when it has only ever read past Kysely', async () => {
    // The hot reads take their connection from the pool themselves (runPooled), so Kysely, which
    // ends the pool only when it ran a query itself, may have nothing to end: a command such as
    // `ers locations list` then waited for the pool's idle timeout (30 s) before it could exit.
    const store = open()
    assert.equal((await store.getEvent(1))?.title, 'Locked')
    assert.equal(store.poolStats()?.total, 1)
    await store.close()
    assert.equal(store.poolStats()?.total, 0)
    await store.close()
  })

  it('turns a statement that outlives statement_timeout into unavailable', async () => {
    const store = open({ statementTimeoutMs: 200 })
    await whileLocked(() =>
      assert.rejects(store.updateEvent(1, { title: 'waits for the lock' }), isUnavailable),
    )
    assert.equal((await store.getEvent(1))?.title, 'Locked')
  })

  it('turns a wait for a free pooled connection beyond connectionTimeoutMs into unavailable', async () => {
    const store = open({
      poolSize: 1,
      connectionTimeoutMs: 200,
      statementTimeoutMs: 1_500,
      applicationName: 'ers-starved',
    })
    await whileLocked(async () => {
      const blocked = store.updateEvent(1, { title: 'holds the only connection' })
      // Only once the write holds the connection, waiting for the lock: a read asked for at the
      // same moment may reach the pool first (reads take fewer steps to it) and not wait at all.
      // (The locker is inside a transaction, which would otherwise see one snapshot of the statistics.)
      for (let waiting = 0; waiting === 0; await new Promise((r) => setTimeout(r, 10))) {
        await locker.query('select pg_stat_clear_snapshot()')
        const { rows } = await locker.query(
          `select count(*) as n from pg_stat_activity
           where application_name = 'ers-starved' and wait_event_type = 'Lock'`,
        )
        waiting = Number(rows[0].n)
      }
      const starved = store.getEvent(1)
      await assert.rejects(starved, isUnavailable)
      await assert.rejects(blocked, isUnavailable)
    })
    assert.equal((await store.getEvent(1))?.title, 'Locked')
  })

  it('survives the server ending its connections and reconnects by itself', async () => {
    const errors: Error[] = []
    const store = open({
      applicationName: 'ers-terminated',
      onConnectionError: (error) => errors.push(error),
    })
    await Promise.all([store.getEvent(1), store.getEvent(1), store.ping()])
    const { rows } = await locker.query(
      `select count(pg_terminate_backend(pid)) as n from pg_stat_activity
       where datname = current_database() and application_name = 'ers-terminated'`,
    )
    const ended = Number(rows[0].n)
    assert.ok(ended > 0)
    // Idle connections learn of it asynchronously; give the pool a moment to drop every one.
    for (let i = 0; i < 100 && errors.length < ended; i++) await new Promise((r) => setTimeout(r, 20))
    assert.equal(errors.length, ended, 'the pool reported every broken idle connection')
    assert.equal((await store.getEvent(1))?.title, 'Locked')
  })

  it('creates the first user only once when different names race', async () => {
    const stores = Array.from({ length: 8 }, () => open())
    // Warm pools, so that the calls below reach the server together.
    await Promise.all(stores.map((s) => s.ping()))
    for (let round = 0; round < 5; round++) {
      await locker.query('delete from users')
      const created = await Promise.all(
        stores.map((s, i) => s.createFirstUser(`first-${i}`, 'editor', 'hash')),
      )
      assert.equal(created.filter(Boolean).length, 1, `round ${round}`)
      const { rows } = await locker.query('select count(*) as n from users')
      assert.equal(Number(rows[0].n), 1, `round ${round}`)
    }
  })
})

describe('[postgres] migrations', { skip: postgresSkipReason ?? false }, () => {
  it('are not cut short by the statement timeout that guards requests', async () => {
    if (!postgres) return
    const database = await postgres.create()
    const holder = new pg.Client({ connectionString: database.databaseUrl, connectionTimeoutMillis: 3_000 })
    await holder.connect()
    const store = new KyselyStore(openPostgres(database.databaseUrl, { statementTimeoutMs: 100 }))
    try {
      // The migrations' lock (dialects/postgres-pooler.ts), held here so that the migration's
      // first statement waits far longer than the 100 ms a request statement may take.
      const migrationLock = "hashtextextended('ers:migrations', 0)"
      await holder.query(`select pg_advisory_lock(${migrationLock})`)
      const migrated = store.migrate()
      const waiting = async () =>
        (
          await holder.query(
            `select count(*)::int as n from pg_stat_activity
             where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
          )
        ).rows[0].n > 0
      const until = Date.now() + 10_000
      while (!(await waiting())) {
        assert.ok(Date.now() < until, 'the migration never waited for the lock')
        await new Promise((resolve) => setImmediate(resolve))
      }
      // Past the request limit while it waits: a statement bound by it would be cancelled now.
      await holder.query('select pg_sleep(0.3)')
      await holder.query(`select pg_advisory_unlock(${migrationLock})`)
      assert.ok((await migrated).includes('0001_initial'))
    } finally {
      await holder.end()
      await store.close()
      await database.drop()
    }
  })
})

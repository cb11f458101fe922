// Issue 30: the service behind a real PgBouncer 1.18 in transaction mode (DATABASE_POOLER=
// transaction), where a server connection changes hands at every commit: no named prepared
// statements, no session settings or advisory locks, and LISTEN only on DATABASE_LISTEN_URL.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { type Bouncer, pgbouncerSkipReason, startPgbouncer } from '../support/pgbouncer.ts'
import { runCli, startServerProcess } from '../support/process.ts'
import { startService, type TestService } from '../support/service.ts'
import { openFeed } from '../support/sse.ts'
import { postgres, postgresSkipReason, type StoreTarget } from '../support/stores.ts'

const eventType = 'application/vnd.service.event+json'
const adminUrl = process.env.DATABASE_URL_TEST_PG ?? ''
const skip = postgresSkipReason ?? pgbouncerSkipReason ?? false

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

describe('[postgres] behind PgBouncer in transaction mode', { skip }, () => {
  let bouncer: Bouncer
  const drops: (() => Promise<void>)[] = []

  /** A fresh database reached through PgBouncer, with the direct URL for LISTEN when `listen`. */
  const newDatabase = async (listen: boolean) => {
    const made = await (postgres as StoreTarget).create()
    drops.push(made.drop)
    const name = new URL(made.databaseUrl).pathname.slice(1)
    return {
      direct: made.databaseUrl,
      viaBouncer: bouncer.url(name),
      settings: {
        databasePooler: 'transaction',
        ...(listen ? { databaseListenUrl: made.databaseUrl } : {}),
      },
    }
  }
  const target = (listen: boolean): StoreTarget => ({
    name: 'postgres-pgbouncer',
    async create() {
      const made = await newDatabase(listen)
      return { databaseUrl: made.viaBouncer, drop: async () => {}, settings: made.settings }
    },
  })

  before(async () => {
    bouncer = await startPgbouncer(adminUrl)
  })
  after(async () => {
    await bouncer?.stop()
    for (const drop of drops) await drop()
  })

  describe('the core of the contract, many requests at once', () => {
    let service: TestService
    before(async () => {
      // Few server connections, many statements: any state left on one would reach another client.
      service = await startService(target(true), { dbPoolSize: '8' })
    })
    after(async () => service?.close())

    it('creates, reads, lists, filters, updates with If-Match and deletes events', async () => {
      const location = await service.store.createLocation({ name: 'Hall', address: '1 Square' })
      const created = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          service.request('POST', '/events', {
            headers: { authorization: service.editorAuth, 'content-type': eventType },
            body: { title: `Concert ${i}`, date: '2027-05-01T10:00:00Z', location_id: location.id },
          }),
        ),
      )
      for (const res of created) assert.equal(res.status, 201, res.text)
      const ids = created.map((res) => res.json().id as number)
      // Each GET by id twice over: a named statement would be Parsed on one server connection only.
      const reads = await Promise.all([...ids, ...ids].map((id) => service.request('GET', `/events/${id}`)))
      for (const res of reads) assert.equal(res.status, 200, res.text)
      const list = await service.request('GET', '/events?per_page=50')
      assert.equal(list.status, 200, list.text)
      // A filtered page is a costly read: its time limit is set inside its own transaction.
      const filtered = await service.request('GET', '/events?q=Concert%201')
      assert.equal(filtered.status, 200, filtered.text)
      const id = ids[0] as number
      const read = await service.request('GET', `/events/${id}`)
      const etag = String(read.headers.etag ?? '')
      const updated = await service.request('PUT', `/events/${id}`, {
        headers: { authorization: service.editorAuth, 'content-type': eventType, 'if-match': etag },
        body: { title: 'Renamed', date: '2027-05-01T10:00:00Z' },
      })
      assert.equal(updated.status, 200, updated.text)
      const stale = await service.request('PUT', `/events/${id}`, {
        headers: { authorization: service.editorAuth, 'content-type': eventType, 'if-match': etag },
        body: { title: 'Again', date: '2027-05-01T10:00:00Z' },
      })
      assert.equal(stale.status, 412, stale.text)
      const deleted = await service.request('DELETE', `/events/${ids[1]}`, {
        headers: { authorization: service.editorAuth },
      })
      assert.equal(deleted.status, 204, deleted.text)
      assert.equal((await service.request('GET', `/events/${ids[1]}`)).status, 404)
    })

    it('delivers a change to the feed, which LISTENs on DATABASE_LISTEN_URL', async () => {
      const feed = await openFeed(service.baseUrl)
      try {
        assert.equal(feed.status, 200, feed.text)
        const location = await service.store.createLocation({ name: 'Park', address: '2 Lane' })
        const res = await service.request('POST', '/events', {
          headers: { authorization: service.editorAuth, 'content-type': eventType },
          body: { title: 'Fed', date: '2027-06-01T10:00:00Z', location_id: location.id },
        })
        assert.equal(res.status, 201, res.text)
        const id = res.json().id
        await feed.until(() => feed.events.some((e) => JSON.parse(e.data).id === id), 'the change', 1_000)
      } finally {
        feed.close()
      }
    })
  })

  it('without DATABASE_LISTEN_URL, the feed still delivers (it polls)', async () => {
    const service = await startService(target(false))
    const feed = await openFeed(service.baseUrl)
    try {
      const location = await service.store.createLocation({ name: 'Yard', address: '3 Road' })
      const res = await service.request('POST', '/events', {
        headers: { authorization: service.editorAuth, 'content-type': eventType },
        body: { title: 'Polled', date: '2027-06-01T10:00:00Z', location_id: location.id },
      })
      const id = res.json().id
      await feed.until(() => feed.events.some((e) => JSON.parse(e.data).id === id), 'the change', 3_000)
    } finally {
      feed.close()
      await service.close()
    }
  })

  it('migrates a fresh database through PgBouncer with ers migrate, leaving no advisory lock', async () => {
    const made = await newDatabase(false)
    const env = { DATABASE_URL: made.viaBouncer, DATABASE_POOLER: 'transaction' }
    const first = await runCli(['migrate'], env)
    assert.equal(first.code, 0, first.stderr)
    assert.match(first.stdout, /applied: 0001_initial/)
    const second = await runCli(['migrate'], env)
    assert.equal(second.code, 0, second.stderr)
    assert.match(second.stdout, /up to date/)
    const locks = await admin(
      async (c) =>
        (
          await c.query(
            `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
           where l.locktype = 'advisory' and d.datname = $1`,
            [new URL(made.direct).pathname.slice(1)],
          )
        ).rows[0].n,
    )
    assert.equal(locks, 0)
    const added = await runCli(
      ['users', 'add', 'carol', '--role', 'reader', '--password', 'carol-secret-1'],
      env,
    )
    assert.equal(added.code, 0, added.stderr)
  })

  it('starts the server through PgBouncer and says so in one log line', async () => {
    const made = await newDatabase(true)
    const server = await startServerProcess({
      DATABASE_URL: made.viaBouncer,
      DATABASE_POOLER: 'transaction',
      DATABASE_LISTEN_URL: made.direct,
      LOG_LEVEL: 'info',
      ADMIN_PASSWORD: 'admin-password-1',
      SEED: 'true',
    })
    try {
      const res = await fetch(`${server.baseUrl}/events`)
      assert.equal(res.status, 200)
      assert.match(server.output(), /behind a transaction pooler.*LISTENs on DATABASE_LISTEN_URL/)
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
    }
  })

  it('is refused by PgBouncer when the pooler is not declared, and says what to set', async () => {
    const made = await newDatabase(false)
    const result = await runCli(['users', 'add', 'dave', '--role', 'reader', '--password', 'dave-secret-1'], {
      DATABASE_URL: made.viaBouncer,
    })
    assert.notEqual(result.code, 0)
    assert.match(result.stderr, /unsupported startup parameter/)
    assert.match(result.stderr, /set DATABASE_POOLER=transaction/)
  })
})

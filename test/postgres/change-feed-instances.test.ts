// CONTRACT.md §7 across instances: a change made through one instance reaches the feeds of all,
// in the one order of the log. Appends are serialised (store/change-log.ts), so a number a feed
// has seen means every lower number is committed or never will be; these tests overlap
// transactions on purpose, write from both instances at once, and cut an instance's LISTEN
// connection, then compare what each feed received with the log itself.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { send, startService, type TestService } from '../support/service.ts'
import { type Feed, openFeed, type SseEvent } from '../support/sse.ts'
import { postgres, postgresSkipReason, type StoreTarget } from '../support/stores.ts'
import { proxyDatabase, type TcpProxy } from '../support/tcp-proxy.ts'

const eventType = 'application/vnd.service.event+json'
const numbers = (events: readonly SseEvent[]) => events.map((e) => Number(e.id))

/** A store target that hands out one existing database (dropped by the test itself). */
const existing = (databaseUrl: string): StoreTarget => ({
  name: 'postgres',
  create: async () => ({ databaseUrl, drop: async () => {} }),
})

describe('[postgres] the change feed across instances', { skip: postgresSkipReason ?? false }, () => {
  let database: { databaseUrl: string; drop(): Promise<void> }
  let proxy: TcpProxy
  /** Two instances on the database, and a third that reaches it through the proxy. */
  const instances: TestService[] = []
  let sql: pg.Client
  let locationId: number
  const feeds: Feed[] = []

  before(async () => {
    if (!postgres) return
    database = await postgres.create()
    const proxied = await proxyDatabase(database.databaseUrl)
    proxy = proxied.proxy
    const { viaProxy } = proxied
    const settings = { dbConnectTimeoutMs: '500', dbStatementTimeoutMs: '8000' }
    // One after the other: the first migrates, the others find nothing to do.
    for (const url of [database.databaseUrl, database.databaseUrl, viaProxy]) {
      instances.push(await startService(existing(url), settings))
    }
    sql = new pg.Client({ connectionString: database.databaseUrl })
    await sql.connect()
    locationId = (
      await (instances[0] as TestService).store.createLocation({ name: 'Hall', address: '1 Square' })
    ).id
  })

  after(async () => {
    for (const feed of feeds) feed.close()
    await sql?.end()
    for (const instance of instances) await instance.close()
    await proxy?.close()
    await database?.drop()
  })

  const on = (n: number) => instances[n] as TestService
  const subscribe = async (n: number, headers: Record<string, string> = {}) => {
    const feed = await openFeed(on(n).baseUrl, headers)
    assert.equal(feed.status, 200, feed.text)
    feeds.push(feed)
    return feed
  }
  const create = async (n: number, title: string) => {
    const res = await send(on(n).baseUrl, 'POST', '/events', {
      headers: { authorization: on(n).editorAuth, 'content-type': eventType },
      body: { title, date: '2027-05-01T10:00:00Z', location_id: locationId },
    })
    assert.equal(res.status, 201, res.text)
    return res.json().id as number
  }
  const logged = async (after: number) =>
    (await sql.query('select seq from change_log where seq > $1 order by seq', [after])).rows.map((r) =>
      Number(r.seq),
    )
  const newest = async () => Number((await sql.query('select max(seq) as n from change_log')).rows[0]?.n ?? 0)

  it('delivers a change made through one instance to a feed on another within a second', async () => {
    const feed = await subscribe(1)
    const id = await create(0, 'Through A')
    // From the moment the write was answered (its commit), not from the request: the first
    // request of an instance verifies the password, which takes its own time.
    const started = Date.now()
    await feed.until(() => feed.events.some((e) => JSON.parse(e.data).id === id), 'the change', 1_000)
    assert.ok(Date.now() - started < 1_000)
    feed.close()
  })

  it('starts a feed without Last-Event-ID after every change committed before it opened, even one its instance has not read yet', async () => {
    const earlier = await create(0, 'Before the feed')
    // Instance 1 reads the log for a feed already open; a change logged without a notification
    // (as a write whose NOTIFY has not arrived yet) is one it has not read when the next feed opens.
    const open = await subscribe(1)
    await sql.query(
      `insert into change_log (kind, event_id, title, starts_at, location_id, version, changed_at)
       select 'updated', id, title, starts_at, location_id, version, $2 from events where id = $1`,
      [earlier, Date.now()],
    )
    const feed = await subscribe(1)
    const later = await create(1, 'After the feed opened')
    await feed.until(() => feed.events.length > 0, 'a change', 2_000)
    assert.equal(JSON.parse(feed.events[0]?.data ?? '').id, later)
    open.close()
    feed.close()
  })

  it('gives every instance’s feed the same gap-free, increasing sequence the log holds, under concurrent writes', async () => {
    const from = await newest()
    const [a, b] = [await subscribe(0), await subscribe(1)]
    const writers = 8
    const each = 10
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < each; i++) await create(w % 2, `Writer ${w} #${i}`)
      }),
    )
    // Changes are numbered by whoever reads the log first: here, the feeds' readers.
    for (const feed of [a, b]) await feed.until(() => feed.events.length >= writers * each, 'every change')
    const expected = await logged(from)
    assert.equal(expected.length, writers * each)
    for (const feed of [a, b]) assert.deepEqual(numbers(feed.events), expected)
    assert.deepEqual(
      expected,
      expected.map((_, i) => from + 1 + i),
      'committed numbers leave no gap',
    )
    assert.deepEqual(
      a.events.map((e) => e.data),
      b.events.map((e) => e.data),
    )
  })

  it('delivers changes as they commit: one logged by a transaction still open is numbered after those committed meanwhile', async () => {
    const from = await newest()
    const feed = await subscribe(0)
    // A transaction of the test's own logs a change exactly as the store does on PostgreSQL
    // (unnumbered, no lock, and a notification once committed) and stays open.
    const holder = new pg.Client({ connectionString: database.databaseUrl })
    await holder.connect()
    try {
      await holder.query('begin')
      await holder.query(`insert into change_log (kind, changed_at) values ('reset', 0)`)
      // Writes through both instances meanwhile are not held up by it.
      await Promise.all([create(0, 'During 1'), create(1, 'During 2'), create(0, 'During 3')])
      await feed.until(() => feed.events.length >= 3, 'the three writes')
      assert.deepEqual(numbers(feed.events), [from + 1, from + 2, from + 3])
      assert.ok(feed.events.every((e) => e.event === 'created'))
      await holder.query('commit')
      await holder.query(`select pg_notify('ers_changes', '')`)
      await feed.until(() => feed.events.length >= 4, 'the held change, once committed')
      assert.equal(feed.events[3]?.event, 'reset')
      assert.deepEqual(numbers(feed.events), [from + 1, from + 2, from + 3, from + 4])
      assert.deepEqual(await logged(from), [from + 1, from + 2, from + 3, from + 4])
    } finally {
      await holder.end()
    }
  })

  it('recovers when its LISTEN connection is cut, and misses nothing written meanwhile', async () => {
    const from = await newest()
    const feed = await subscribe(2)
    await create(0, 'Before the cut')
    await feed.until(() => feed.events.length >= 1, 'the change before the cut')
    await proxy.cut('refuse')
    const during = [await create(0, 'During the cut 1'), await create(1, 'During the cut 2')]
    await proxy.restore()
    const restored = new Date()
    const later = await create(1, 'After the cut')
    await feed.until(() => feed.events.length >= 4, 'every change, once reconnected', 10_000)
    assert.deepEqual(numbers(feed.events), await logged(from))
    assert.deepEqual(
      feed.events.slice(1).map((e) => JSON.parse(e.data).id),
      [...during, later],
    )
    // The instance behind the proxy listens again, on a connection opened after the restore.
    const listening = await sql.query(
      `select count(*) as n from pg_stat_activity
       where application_name = 'event-resource-service (change feed)' and backend_start >= $1`,
      [restored],
    )
    assert.equal(Number(listening.rows[0]?.n), 1)
  })
})

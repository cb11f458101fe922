// Issue 30, read replicas: one service instance on a primary of the test's own with one streaming
// replica (test/support/clusters.ts), DATABASE_READ_URL naming it. Plain reads go to the replica,
// each read still sees the write before it, a lagging or stopped replica is skipped.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import {
  clusterSkipReason,
  type Node,
  type ReplicatedPair,
  startReplicatedPair,
} from '../support/clusters.ts'
import { type Response, startService, type TestService } from '../support/service.ts'
import { postgresSkipReason, type StoreTarget } from '../support/stores.ts'

const eventType = 'application/vnd.service.event+json'
const skip = postgresSkipReason ?? clusterSkipReason ?? false

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 })
  await client.connect()
  try {
    return (await client.query(text)).rows as T[]
  } finally {
    await client.end()
  }
}

/** Polls `check` until it holds; no sleeps for readiness. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('[postgres] plain reads on a streaming replica (DATABASE_READ_URL)', { skip }, () => {
  let clusters: ReplicatedPair
  let replica: Node
  let service: TestService
  const database = `ers_replicas_${randomBytes(4).toString('hex')}`

  /** The replica's own counters of reads in the test's database. */
  const replicaReads = async () => {
    const [row] = await query<{ fetched: string; scans: string | null }>(
      replica.url(database),
      `select (select tup_fetched from pg_stat_database where datname = current_database()) as fetched,
              (select seq_scan + coalesce(idx_scan, 0) from pg_stat_user_tables where relname = 'events') as scans`,
    )
    return { fetched: Number(row?.fetched), scans: Number(row?.scans ?? 0) }
  }
  const health = async () => (await service.request('GET', '/health/ready')).json()
  const replicaState = async () => (await health()).replicas?.[0]?.state as string | undefined
  const stats = () =>
    service.store.replicaStats() as NonNullable<ReturnType<TestService['store']['replicaStats']>>
  const put = (id: number, title: string) =>
    service.request('PUT', `/events/${id}`, {
      headers: { authorization: service.editorAuth, 'content-type': eventType },
      body: { title, date: '2027-05-01T10:00:00.000Z' },
    })

  before(async () => {
    // Asynchronous: a replica that lags or stops must not hold the primary's commits.
    clusters = await startReplicatedPair({ synchronous: false })
    replica = clusters.standby
    await query(clusters.primary.url(), `create database ${database}`)
    const target: StoreTarget = {
      name: 'postgres-replicas',
      create: async () => ({ databaseUrl: clusters.primary.url(database), drop: async () => {} }),
    }
    service = await startService(target, {
      databaseReadUrl: replica.url(database),
      // Writes in this test wait for no disk (fsync off): the default wait would do as well.
      replicaWaitMs: '50',
      replicaMaxLagMs: '1000',
    })
    await until('the replica to serve reads', async () => (await replicaState()) === 'up')
  })
  after(async () => {
    await service?.close()
    await clusters?.stop()
  })

  it('reports the replica in /health/ready, up and with its lag', async () => {
    const body = await health()
    assert.equal(body.status, 'ready')
    assert.equal(body.replicas.length, 1)
    assert.equal(body.replicas[0].name, `127.0.0.1:${replica.port}`)
    assert.equal(body.replicas[0].state, 'up')
    assert.equal(typeof body.replicas[0].lag_ms, 'number')
  })

  it('answers 200 rounds of PUT then GET with the PUT each time, the reads served by the replica', async () => {
    const location = await service.store.createLocation({ name: 'Hall', address: '1 Square' })
    const created = await service.store.createEvent({
      title: 'Round 0',
      date: Date.parse('2027-05-01T10:00:00Z'),
      locationId: location.id,
    })
    const before = { counters: await replicaReads(), stats: stats() }
    for (let round = 1; round <= 200; round++) {
      const written = await put(created.id, `Round ${round}`)
      assert.equal(written.status, 200, written.text)
      const read = await service.request('GET', `/events/${created.id}`)
      assert.equal(read.status, 200)
      assert.equal(read.json().title, `Round ${round}`, `round ${round}: the GET saw an older write`)
      assert.equal(read.header('etag'), written.header('etag'))
    }
    const served = stats().replicas[0]?.reads ?? 0
    const fromReplica = served - (before.stats.replicas[0]?.reads ?? 0)
    process.stderr.write(`replica served ${fromReplica} of 200 reads after writes\n`)
    assert.ok(fromReplica > 0, 'no read went to the replica')
    // The replica's own statistics agree: its scans of `events` in the test's database, and the
    // rows it fetched there (each backend reports them within a second or so of going idle).
    let seen = before.counters
    await until('the replica counting the reads', async () => {
      seen = await replicaReads()
      return seen.scans - before.counters.scans >= fromReplica && seen.fetched > before.counters.fetched
    }).catch((error: Error) => {
      throw new Error(
        `${error.message}: before ${JSON.stringify(before.counters)}, now ${JSON.stringify(seen)}`,
      )
    })
  })

  it('reads the primary for Cache-Control: no-cache, on GET, HEAD and QUERY alike', async () => {
    const [event] = (await service.request('GET', '/events?per_page=1')).json().events
    const before = stats()
    const asked: Response[] = [
      await service.request('GET', `/events/${event.id}`, { headers: { 'cache-control': 'no-cache' } }),
      await service.request('HEAD', `/events/${event.id}`, { headers: { 'cache-control': 'no-cache' } }),
      await service.request('GET', '/events', { headers: { 'cache-control': 'max-age=0, no-cache' } }),
      await service.request('QUERY', '/events', {
        headers: { 'cache-control': 'no-cache', 'content-type': 'application/json' },
        body: { page: 1, per_page: 5 },
      }),
    ]
    for (const res of asked) assert.equal(res.status, 200, res.text)
    const after = stats()
    assert.equal(after.replicas[0]?.reads, before.replicas[0]?.reads, 'a no-cache read went to the replica')
    assert.ok(after.primaryReads >= before.primaryReads + 4)
  })

  it('reads the primary for the reads of a write: the collection a POST with If-None-Match checks', async () => {
    const location = await service.store.createLocation({ name: 'Annex', address: '2 Square' })
    const before = stats()
    const created = await service.request('POST', '/events', {
      headers: {
        authorization: service.editorAuth,
        'content-type': eventType,
        'if-none-match': '"not-this-one"',
      },
      body: {
        title: 'Checked against the primary',
        date: '2027-06-01T10:00:00.000Z',
        location_id: location.id,
      },
    })
    assert.equal(created.status, 201, created.text)
    const after = stats()
    assert.equal(after.replicas[0]?.reads, before.replicas[0]?.reads, "a write's read went to the replica")
    assert.ok(after.primaryReads > before.primaryReads)
  })

  it('reads the primary while the replica lags past REPLICA_MAX_LAG_MS, and its own write at once', async () => {
    const [event] = (await service.request('GET', '/events?per_page=1')).json().events
    await query(replica.url(), 'select pg_wal_replay_pause()')
    try {
      const written = await put(event.id, 'Written while the replica stands still')
      assert.equal(written.status, 200)
      // Within REPLICA_WAIT_MS the replica has not replayed it: the read goes to the primary.
      const read = await service.request('GET', `/events/${event.id}`)
      assert.equal(read.json().title, 'Written while the replica stands still')
      await until('the replica to count as lagging', async () => (await replicaState()) === 'lagging')
      const lagging = stats()
      for (let i = 0; i < 20; i++) assert.equal((await service.request('GET', '/events')).status, 200)
      assert.equal(stats().replicas[0]?.reads, lagging.replicas[0]?.reads, 'a lagging replica served a read')
      const metrics = (await service.request('GET', '/metrics')).text
      assert.match(metrics, /^db_replica_up\{replica="127\.0\.0\.1:\d+"\} 0$/m)
    } finally {
      await query(replica.url(), 'select pg_wal_replay_resume()')
    }
    await until('the replica to serve reads again', async () => (await replicaState()) === 'up')
    const metrics = (await service.request('GET', '/metrics')).text
    assert.match(metrics, /^db_reads_total\{target="replica 127\.0\.0\.1:\d+"\} [1-9]\d*$/m)
    assert.match(metrics, /^db_reads_total\{target="primary"\} [1-9]\d*$/m)
    assert.match(metrics, /^db_replica_lag_seconds\{replica="127\.0\.0\.1:\d+"\} [\d.e-]+$/m)
  })

  it('goes on reading when the replica stops mid-run: no failed request, the replica reported down', async () => {
    const [event] = (await service.request('GET', '/events?per_page=1')).json().events
    const clients = 4
    let stopped = false
    let afterStop = 0
    const failures: string[] = []
    const reader = async (n: number) => {
      for (let i = 0; afterStop < 200; i++) {
        const res = await service.request(
          'GET',
          i % 2 === n % 2 ? `/events/${event.id}` : '/events?per_page=5',
        )
        if (res.status !== 200) failures.push(`${res.status} ${res.text}`)
        if (stopped) afterStop++
      }
    }
    const readers = Array.from({ length: clients }, (_, n) => reader(n))
    await until('reads on the replica', async () => (stats().replicas[0]?.reads ?? 0) > 0)
    const served = stats().replicas[0]?.reads ?? 0
    await until('more reads on the replica', async () => (stats().replicas[0]?.reads ?? 0) > served + 50)
    await clusters.stopStandby()
    stopped = true
    await Promise.all(readers)
    process.stderr.write(
      `failed requests while the replica stopped: ${failures.length}; retried on the primary: ${stats().retried}\n`,
    )
    // At most one per connection in flight; the retry on the primary should leave none.
    assert.ok(failures.length <= clients, failures.join('\n'))
    assert.deepEqual(failures, [])
    assert.equal(await replicaState(), 'down')
    // Back once it answers again.
    await clusters.startStandby()
    await until('the replica to serve reads again', async () => (await replicaState()) === 'up')
  })
})

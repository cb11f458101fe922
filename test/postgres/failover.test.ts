// Issue 30's failover drill on a cluster the test builds: a primary and a synchronous standby,
// named to the service in libpq's multi-host form with target_session_attrs=read-write. Four
// clients write (PUT and keyed POST) through two instances while a third instance's change feed
// is read; the primary is killed (pg_ctl -m immediate stop) and the standby promoted. Then:
// no 500 at any time, 503s carry Retry-After, writes succeed again within 10 s of the promotion
// without a restart, every acknowledged write is on the new primary, every keyed POST created
// exactly one event, and the feed holds every committed change once, in order.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { openPostgres } from '../../src/store/dialects/postgres.ts'
import { clusterSkipReason, query, type ReplicatedPair, startReplicatedPair } from '../support/clusters.ts'
import { freePort } from '../support/ports.ts'
import { type Response, send, startService, type TestService } from '../support/service.ts'
import { type Feed, openFeed } from '../support/sse.ts'
import type { StoreTarget } from '../support/stores.ts'

const eventType = 'application/vnd.service.event+json'
const date = '2027-05-01T10:00:00Z'

/** A store target that hands out one existing database (the cluster's, removed with it). */
const existing = (databaseUrl: string): StoreTarget => ({
  name: 'postgres',
  create: async () => ({ databaseUrl, drop: async () => {} }),
})

interface Ack {
  readonly kind: 'put' | 'post'
  readonly title: string
  readonly eventId: number
}

interface Answer {
  readonly status: number
  readonly at: number
  readonly retryAfter: string | undefined
  readonly text: string
}

async function until(holds: () => boolean | Promise<boolean>, what: string, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await holds())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('[cluster] failover: primary killed, synchronous standby promoted', {
  skip: clusterSkipReason ?? false,
}, () => {
  let pair: ReplicatedPair | undefined
  const instances: TestService[] = []
  let feed: Feed | undefined

  before(async () => {
    pair = await startReplicatedPair({ synchronous: true })
    await query(pair.primary.url(), 'create database ers')
    // Short waits, so that a dead host costs a request little: a connection refused is at once,
    // a standby answers read-only at once; the statement limit only guards against a hang.
    const settings = { dbConnectTimeoutMs: '1000', dbStatementTimeoutMs: '5000', dbPoolSize: '6' }
    // One after the other: the first migrates, the others find nothing to do.
    for (let n = 0; n < 3; n++)
      instances.push(await startService(existing(pair.multiHostUrl('ers')), settings))
  })

  after(async () => {
    feed?.close()
    for (const instance of instances) await instance.close().catch(() => {})
    await pair?.stop()
  })

  it('loses no acknowledged write, answers 503 (never 500) meanwhile, and the feed stays whole', async () => {
    const cluster = pair as ReplicatedPair
    const [first, second, watcher] = instances as [TestService, TestService, TestService]
    const location = await first.store.createLocation({ name: 'Hall', address: '1 Square' })
    feed = await openFeed(watcher.baseUrl)
    assert.equal(feed.status, 200, feed.text)
    const startSeq = Number(
      (await query(cluster.primary.url('ers'), 'select coalesce(max(seq), 0) as n from change_log')).rows[0]
        .n,
    )

    const answers: Answer[] = []
    const acks: Ack[] = []
    const keyed: { key: string; title: string; eventId: number; attempts: number }[] = []
    let stopping = false
    const write = async (
      instance: TestService,
      method: string,
      path: string,
      body: unknown,
      headers = {},
    ) => {
      const res: Response = await send(instance.baseUrl, method, path, {
        headers: { authorization: instance.editorAuth, 'content-type': eventType, ...headers },
        body,
      })
      answers.push({
        status: res.status,
        at: performance.now(),
        retryAfter: res.header('retry-after'),
        text: res.text,
      })
      // A client that honours 503 waits a little before it tries again.
      if (res.status === 503) await new Promise((resolve) => setTimeout(resolve, 50))
      return res
    }
    const client = async (c: number) => {
      const instance = c % 2 === 0 ? first : second
      const own = await first.store.createEvent({
        title: `c${c}-own`,
        date: Date.parse(date),
        locationId: location.id,
      })
      for (let n = 0; !stopping; n++) {
        if (n % 2 === 0) {
          const title = `c${c}-put-${n}`
          const res = await write(instance, 'PUT', `/events/${own.id}`, { title, date })
          if (res.status === 200) acks.push({ kind: 'put', title, eventId: own.id })
          else if (res.status !== 503) throw new Error(`PUT answered ${res.status}: ${res.text}`)
        } else {
          // Retried with the same key until answered, as a careful client does after a 503.
          const title = `c${c}-post-${n}`
          const key = `c${c}-key-${n}`
          for (let attempts = 1; ; attempts++) {
            const res = await write(
              instance,
              'POST',
              '/events',
              { title, date, location_id: location.id },
              {
                'idempotency-key': key,
              },
            )
            if (res.status === 201 || res.status === 200) {
              const eventId = res.json().id as number
              acks.push({ kind: 'post', title, eventId })
              keyed.push({ key, title, eventId, attempts })
              break
            }
            if (res.status !== 503) throw new Error(`POST answered ${res.status}: ${res.text}`)
          }
        }
      }
    }
    const clients = [0, 1, 2, 3].map(client)
    const failed = Promise.all(clients).then(
      () => undefined,
      (error: unknown) => error,
    )

    await until(() => acks.length >= 40, '40 acknowledged writes before the failover')
    const ackedBefore = acks.length
    const killedAt = performance.now()
    await cluster.killPrimary()
    // The window in which no host takes writes: every client meets it.
    await until(
      () => answers.filter((a) => a.at > killedAt && a.status === 503).length >= 8,
      'writes refused after the kill',
    )
    await cluster.promoteStandby()
    const promotedAt = performance.now()
    await until(() => answers.some((a) => a.at > promotedAt && a.status < 300), 'a write after the promotion')
    const firstWriteMs = Math.round(
      (answers.find((a) => a.at > promotedAt && a.status < 300)?.at ?? Number.NaN) - promotedAt,
    )
    await until(() => acks.length >= ackedBefore + 60, '60 more acknowledged writes after the promotion')
    stopping = true
    const error = await failed
    if (error) throw error

    // Issue 30: "writes succeed again within 10 s" of the promotion, without a restart.
    assert.ok(firstWriteMs < 10_000, `first write ${firstWriteMs} ms after the promotion`)
    const fiveHundreds = answers.filter((a) => a.status >= 500 && a.status !== 503)
    assert.deepEqual(fiveHundreds, [], 'no 5xx other than 503')
    const refused = answers.filter((a) => a.status === 503)
    assert.ok(refused.length > 0, 'the failover was seen by the clients')
    assert.deepEqual(
      refused.filter((a) => a.retryAfter === undefined),
      [],
      'every 503 carries Retry-After',
    )

    const newPrimary = cluster.standby.url('ers')
    // Every acknowledged write is on the new primary: its change, and for a POST its event.
    const logged = await query(newPrimary, 'select event_id, title from change_log')
    const loggedTitles = new Set(logged.rows.map((row) => `${row.event_id} ${row.title}`))
    const missing = acks.filter((ack) => !loggedTitles.has(`${ack.eventId} ${ack.title}`))
    assert.deepEqual(missing, [], 'acknowledged writes missing after the failover')
    const events = await query(newPrimary, 'select id, title from events')
    const byTitle = new Map<string, number[]>()
    for (const row of events.rows) byTitle.set(row.title, [...(byTitle.get(row.title) ?? []), Number(row.id)])
    // A keyed POST, however often retried, made one event: the one its answer named.
    for (const k of keyed)
      assert.deepEqual(byTitle.get(k.title), [k.eventId], `${k.key} (${k.attempts} attempts)`)

    // The feed: every committed change after it opened, once, in the log's order.
    const newest = async () => {
      const { rows } = await query(
        newPrimary,
        'select max(seq) as n, count(*) filter (where seq is null) as pending from change_log',
      )
      return { newest: Number(rows[0].n), pending: Number(rows[0].pending) }
    }
    const open = feed
    await until(async () => {
      const log = await newest()
      return log.pending === 0 && open.events.some((e) => Number(e.id) === log.newest)
    }, 'the feed to deliver the newest change')
    const delivered = open.events.filter((e) => e.id !== undefined).map((e) => Number(e.id))
    const inLog = (
      await query(newPrimary, 'select seq from change_log where seq > $1 order by seq', [startSeq])
    ).rows.map((row) => Number(row.seq))
    assert.deepEqual(delivered, inLog, 'the feed holds each committed change once, in order')
    const feedText = open.events.map((e) => e.data).join('\n')
    assert.deepEqual(
      acks.filter((ack) => !feedText.includes(`"${ack.title}"`)).map((ack) => ack.title),
      [],
      'every acknowledged write reached the feed',
    )
    const putAnswers = answers.length
    process.stdout.write(
      `failover drill: first write ${firstWriteMs} ms after the promotion; ${acks.length} writes acknowledged ` +
        `(${ackedBefore} before the kill), ${acks.length - missing.length} found; ${refused.length} answered 503 ` +
        `of ${putAnswers}; ${keyed.filter((k) => k.attempts > 1).length} keyed POSTs retried; feed ${delivered.length} changes\n`,
    )
  })
})

describe('[cluster] failover: a commit whose answer is lost', { skip: clusterSkipReason ?? false }, () => {
  let pair: ReplicatedPair | undefined
  let service: TestService | undefined

  before(async () => {
    pair = await startReplicatedPair({ synchronous: true })
    await query(pair.primary.url(), 'create database ers')
    // A statement limit longer than the test's wait: PostgreSQL ends a commit's wait for the
    // synchronous standby on a cancel and reports success ("committed locally"), which is not
    // the case under test here (docs/operations.md, High availability).
    const settings = { dbConnectTimeoutMs: '1000', dbStatementTimeoutMs: '60000' }
    service = await startService(existing(pair.multiHostUrl('ers')), settings)
  })

  after(async () => {
    await service?.close().catch(() => {})
    await pair?.stop()
  })

  it('answers 503, and the keyed retry after the promotion creates the event once', async () => {
    const cluster = pair as ReplicatedPair
    const instance = service as TestService
    const location = await instance.store.createLocation({ name: 'Hall', address: '1 Square' })
    const post = () =>
      send(instance.baseUrl, 'POST', '/events', {
        headers: {
          authorization: instance.editorAuth,
          'content-type': eventType,
          'idempotency-key': 'lost-1',
        },
        body: { title: 'lost answer', date, location_id: location.id },
      })
    // With the synchronous standby away, the primary commits locally and waits for it.
    await cluster.stopStandby()
    const pending = post()
    await until(async () => {
      const { rows } = await query(
        cluster.primary.url(),
        "select count(*) as n from pg_stat_activity where wait_event = 'SyncRep'",
      )
      return Number(rows[0].n) > 0
    }, 'the POST to wait for the synchronous standby')
    await cluster.killPrimary()
    const lost = await pending
    assert.equal(lost.status, 503, lost.text)
    assert.ok(lost.header('retry-after'), 'a 503 carries Retry-After')
    await cluster.startStandby()
    await cluster.promoteStandby()
    const newPrimary = cluster.standby.url('ers')
    const titled = async () =>
      (await query(newPrimary, "select id from events where title = 'lost answer'")).rows.map((r) =>
        Number(r.id),
      )
    // The standby never had the commit: the write the client was not told of is not there.
    assert.deepEqual(await titled(), [])
    let answer = await post()
    for (let attempts = 1; answer.status === 503 && attempts < 200; attempts++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      answer = await post()
    }
    assert.equal(answer.status, 201, answer.text)
    assert.deepEqual(await titled(), [answer.json().id])
    // Once more: the stored answer, no second event.
    const replay = await post()
    assert.equal(replay.json().id, answer.json().id)
    assert.deepEqual(await titled(), [answer.json().id])
  })
})

describe('[cluster] target_session_attrs picks the host', { skip: clusterSkipReason ?? false }, () => {
  let pair: ReplicatedPair | undefined
  before(async () => {
    pair = await startReplicatedPair({ synchronous: false })
  })
  after(async () => {
    await pair?.stop()
  })

  const serverPort = async (url: string) => {
    const dialect = openPostgres(url, { poolSize: 2 })
    try {
      const { rows } = await sql<{ port: number }>`select inet_server_port() as port`.execute(dialect.db)
      return rows[0]?.port
    } finally {
      await dialect.close()
    }
  }

  it('passes over a standby named first for read-write and primary, and takes it for standby', async () => {
    const { primary, standby } = pair as ReplicatedPair
    const hosts = `127.0.0.1:${standby.port},127.0.0.1:${primary.port}`
    for (const attrs of ['read-write', 'primary']) {
      assert.equal(
        await serverPort(`postgres://postgres@${hosts}/postgres?target_session_attrs=${attrs}`),
        primary.port,
        attrs,
      )
    }
    const reversed = `127.0.0.1:${primary.port},127.0.0.1:${standby.port}`
    for (const attrs of ['standby', 'prefer-standby', 'read-only']) {
      assert.equal(
        await serverPort(`postgres://postgres@${reversed}/postgres?target_session_attrs=${attrs}`),
        standby.port,
        attrs,
      )
    }
    // `any` takes the first host that answers, here a dead one skipped.
    const dead = await freePort()
    assert.equal(await serverPort(`postgres://postgres@127.0.0.1:${dead},${reversed}/postgres`), primary.port)
  })
})

// Issue 32: on PostgreSQL, reads whose cost grows with the data cannot starve the cheap ones. A
// real server on a database of 200,000 events, with a pool smaller than the flood, is sent the
// costliest searches from more connections than the pool has, while a second client reads
// /events/5 and counts its answers per 100 ms window: none may be empty, and every search is
// answered 200, or 503 with Retry-After and a problem body. A statement cut by the budget leaves
// its connection usable, and a costly statement runs without parallel workers.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { costlySearches, flood } from '../../bench/flood.ts'
import { seedPostgres } from '../../bench/seed-store.ts'
import { DomainError } from '../../src/domain/errors.ts'
import { openPostgres } from '../../src/store/dialects/postgres.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { send } from '../support/service.ts'
import { postgres, postgresSkipReason } from '../support/stores.ts'

const events = 200_000

function assertProblem503(text: string, retryAfter: string | undefined, contentType: string | undefined) {
  assert.match(retryAfter ?? '', /^\d+$/, 'a 503 says when to retry')
  assert.equal(contentType, 'application/problem+json')
  const body = JSON.parse(text)
  assert.equal(body.status, 503)
  assert.equal(body.title, 'Service Unavailable')
  assert.match(body.detail, /too costly to answer within \d+ ms|too many costly searches/)
}

describe('[postgres] costly reads in their bulkhead', { skip: postgresSkipReason ?? false }, () => {
  let database: { databaseUrl: string; drop(): Promise<void> }
  const servers: ServerProcess[] = []

  const start = async (env: Record<string, string>) => {
    const server = await startServerProcess({
      DATABASE_URL: database.databaseUrl,
      SEED: 'false',
      ADMIN_PASSWORD: 'admin-password-1',
      RATE_LIMIT_READS: '0',
      ACCESS_LOG: 'false',
      ...env,
    })
    servers.push(server)
    return server
  }
  const stop = async (server: ServerProcess) => {
    server.child.kill('SIGTERM')
    assert.deepEqual(await server.exited, { code: 0, signal: null })
  }

  before(async () => {
    if (!postgres) return
    database = await postgres.create()
    await seedPostgres(database.databaseUrl, events)
  })
  after(async () => {
    for (const server of servers) server.child.kill('SIGKILL')
    await Promise.all(servers.map((server) => server.exited))
    await database?.drop()
  })

  it('answers GET /events/5 in every 100 ms window under a flood of costly searches from more connections than the pool has', async (t) => {
    // 4 connections: 1 for costly reads, 3 for the rest; the flood comes from 8.
    const server = await start({ DB_POOL_SIZE: '4' })
    const result = await flood(server.baseUrl, {
      paths: costlySearches(events),
      connections: 8,
      durationMs: 4_000,
      probe: '/events/5',
    })
    assert.deepEqual(result.probeFailures, [], 'GET /events/5 always answers 200')
    assert.ok(result.answers.length > 0)
    const sorted = [...result.probeMs].sort((a, b) => a - b)
    const ok = result.answers.filter((answer) => answer.status === 200).length
    t.diagnostic(
      `/events/5 answered ${result.healthAnswers} times, p99 ${sorted[Math.floor(sorted.length * 0.99)]?.toFixed(0)} ms, longest ${result.healthMaxMs.toFixed(0)} ms; searches ${ok}× 200, ${result.answers.length - ok}× 503`,
    )
    for (const answer of result.answers) {
      if (answer.status === 200) continue
      assert.equal(answer.status, 503, `${answer.path}: ${answer.status} ${answer.body}`)
      assertProblem503(answer.body, answer.retryAfter, answer.contentType)
    }
    const empty = result.healthWindows.flatMap((count, window) => (count === 0 ? [window] : []))
    assert.deepEqual(
      empty,
      [],
      `GET /events/5 went unanswered in these 100 ms windows (longest answer ${result.healthMaxMs.toFixed(0)} ms)`,
    )
    const metrics = (await send(server.baseUrl, 'GET', '/metrics')).text
    assert.match(metrics, /^db_costly_read_waits_total [1-9]\d*$/m)
    assert.match(metrics, /^db_costly_reads_queued \d+$/m)
    assert.match(metrics, /^db_costly_reads_refused_total \d+$/m)
    await stop(server)
  })

  it('answers 503 too_costly past READ_BUDGET_MS, counted, while reads by id are answered', async () => {
    const server = await start({ READ_BUDGET_MS: '5', DB_POOL_SIZE: '2' })
    let refused: Awaited<ReturnType<typeof send>> | undefined
    for (const path of costlySearches(events)) {
      const res = await send(server.baseUrl, 'GET', path)
      if (res.status === 200) continue
      refused = res
      break
    }
    assert.ok(refused, 'some search costs more than 5 ms')
    assert.equal(refused.status, 503, refused.text)
    assertProblem503(refused.text, refused.header('retry-after'), refused.header('content-type'))
    assert.match(JSON.parse(refused.text).detail, /too costly to answer within 5 ms/)
    assert.equal((await send(server.baseUrl, 'GET', '/events/5')).status, 200)
    const metrics = (await send(server.baseUrl, 'GET', '/metrics')).text
    assert.match(metrics, /^db_reads_over_budget_total [1-9]\d*$/m)
    await stop(server)
  })

  it('leaves a connection usable after the budget cut its statement', async () => {
    const dialect = openPostgres(database.databaseUrl, {
      poolSize: 2,
      costlyReadConnections: 1,
      readBudgetMs: 300,
    })
    try {
      assert.ok(dialect.readCostly)
      const pid = sql<{ pid: number }>`select pg_backend_pid() as pid`.compile(dialect.db)
      const [first] = await dialect.readCostly(pid)
      const slow = sql`select pg_sleep(5)`.compile(dialect.db)
      const started = performance.now()
      await assert.rejects(dialect.readCostly(slow), (error: unknown) => {
        assert.ok(error instanceof DomainError)
        assert.equal(error.code, 'too_costly')
        return true
      })
      assert.ok(performance.now() - started < 2_000, 'PostgreSQL cancelled it at the budget')
      // The one costly connection: the same backend, still serving, with its budget set anew.
      const [second] = await dialect.readCostly(pid)
      assert.equal(second?.pid, first?.pid)
      const [slept] = await dialect.readCostly(
        sql<{ ok: number }>`select 1 as ok from pg_sleep(0.1)`.compile(dialect.db),
      )
      assert.equal(slept?.ok, 1)
      assert.equal(dialect.readerStats?.().overBudget, 1)
    } finally {
      await dialect.close()
    }
  })

  it("runs a costly read in one process: no parallel workers take the cheap reads' cores", async () => {
    const dialect = openPostgres(database.databaseUrl, { poolSize: 2, costlyReadConnections: 1 })
    try {
      assert.ok(dialect.readCostly)
      type Step = { 'QUERY PLAN': string }
      const explain = sql<Step>`explain select count(*) from events where title like '%a%'`
      const plan = (rows: Step[]) => rows.map((row) => row['QUERY PLAN']).join('\n')
      // The same statement on a cheap connection: big enough to be planned with workers.
      assert.match(plan((await explain.execute(dialect.db)).rows), /Gather/)
      assert.doesNotMatch(plan(await dialect.readCostly(explain.compile(dialect.db))), /Gather|Parallel/)
    } finally {
      await dialect.close()
    }
  })
})

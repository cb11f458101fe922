// No public request may freeze a SQLite server (better-sqlite3 runs on the event loop): a real
// server on a SQLite file of 200,000 events, flooded from several connections with the searches
// no index bounds (a `q` of one or two characters, deep filtered pages, wide date ranges), keeps
// answering /health/live, and a read by id, in every 100 ms window; each search is answered 200,
// or 503 with Retry-After and a problem body when it does not finish within READ_BUDGET_MS.
// (test/floods/postgres-bulkhead.test.ts holds PostgreSQL to the same.)
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { costlySearches, flood } from '../../bench/flood.ts'
import { seedSqlite } from '../../bench/seed-store.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { send } from '../support/service.ts'

const events = 200_000
const dir = mkdtempSync(join(tmpdir(), 'ers-search-flood-'))
const path = join(dir, 'events.db')
const servers: ServerProcess[] = []

const start = async (how: 'source' | 'npm start', env: Record<string, string> = {}) => {
  const server = await startServerProcess(
    {
      DATABASE_URL: `sqlite:${path}`,
      SEED: 'false',
      ADMIN_PASSWORD: 'admin-password-1',
      RATE_LIMIT_READS: '0',
      // Thousands of answers: their access lines would only fill the test's memory.
      ACCESS_LOG: 'false',
      ...env,
    },
    how,
  )
  servers.push(server)
  return server
}

const stop = async (server: ServerProcess) => {
  server.child.kill('SIGTERM')
  assert.deepEqual(await server.exited, { code: 0, signal: null }, 'SIGTERM still drains and exits 0')
}

function assertProblem503(text: string, retryAfter: string | undefined, contentType: string | undefined) {
  assert.match(retryAfter ?? '', /^\d+$/, 'a 503 says when to retry')
  assert.equal(contentType, 'application/problem+json')
  const body = JSON.parse(text)
  assert.equal(body.status, 503)
  assert.equal(body.title, 'Service Unavailable')
  assert.match(body.detail, /too costly to answer within \d+ ms; narrow it/)
}

describe('searches on a SQLite file of 200,000 events', () => {
  before(async () => {
    await seedSqlite(path, events)
  })
  after(async () => {
    for (const server of servers) server.child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  for (const probe of ['/health/live', '/events/5'])
    it(`keep ${probe} answering in every 100 ms window under a flood of costly searches`, async () => {
      const server = await start('source')
      const result = await flood(server.baseUrl, {
        paths: costlySearches(events),
        connections: 4,
        durationMs: 4_000,
        probe,
      })
      assert.ok(result.answers.length > 0)
      assert.deepEqual(result.probeFailures, [], `${probe} always answers 200`)
      for (const answer of result.answers) {
        if (answer.status === 200) continue
        assert.equal(answer.status, 503, `${answer.path}: ${answer.status} ${answer.body}`)
        assertProblem503(answer.body, answer.retryAfter, answer.contentType)
      }
      const empty = result.healthWindows.flatMap((count, window) => (count === 0 ? [window] : []))
      assert.deepEqual(
        empty,
        [],
        `${probe} went unanswered in these 100 ms windows (longest answer ${result.healthMaxMs.toFixed(0)} ms)`,
      )
      await stop(server)
    })

  it('answers 503 with Retry-After and a problem body past READ_BUDGET_MS, then answers normally again', async () => {
    // 20 ms: on a fast machine counting 200,000 titles finished within 100 ms (the budget this
    // had), while a cheap search takes a few.
    const server = await start('source', { READ_BUDGET_MS: '20' })
    // Every title holds an "a": counting them reads all 200,000 rows.
    const refused = await send(server.baseUrl, 'GET', '/events?q=a')
    assert.equal(refused.status, 503, refused.text.slice(0, 200))
    assertProblem503(refused.text, refused.header('retry-after'), refused.header('content-type'))
    // Meanwhile and afterwards the service answers what it can.
    assert.equal((await send(server.baseUrl, 'GET', '/health/live')).status, 200)
    const unfiltered = await send(server.baseUrl, 'GET', '/events?per_page=1')
    assert.equal(unfiltered.status, 200)
    assert.equal(unfiltered.json().total, events)
    // Once the thread has finished the refused statement, a cheap search is answered within budget.
    const deadline = Date.now() + 30_000
    for (;;) {
      const res = await send(server.baseUrl, 'GET', '/events?q=%23123456')
      if (res.status === 200) {
        assert.deepEqual(
          res.json().events.map((e: { title: string }) => e.title),
          ['Benchmark event #123456'],
        )
        break
      }
      assert.equal(res.status, 503, res.text)
      assert.ok(Date.now() < deadline, 'a cheap search was never answered again')
    }
    const metrics = await send(server.baseUrl, 'GET', '/metrics')
    assert.match(metrics.text, /^db_reads_over_budget_total [1-9]\d*$/m)
    await stop(server)
  })

  it('runs the reader thread from the build under `npm start`', async () => {
    const server = await start('npm start')
    const res = await send(server.baseUrl, 'GET', '/events?location_id=7&per_page=2')
    assert.equal(res.status, 200, res.text)
    assert.equal(res.json().total, 200)
    assert.equal(res.json().events.length, 2)
    server.child.kill('SIGTERM')
    assert.deepEqual(await server.exited, { code: 0, signal: null })
  })
})

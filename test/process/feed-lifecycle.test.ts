// The change feed in a real server process on SQLite: a change written by the CLI from another
// process reaches an open feed (the data_version poll), and SIGTERM ends every feed cleanly inside
// the drain deadline, the process exiting 0, after which the client resumes where it stopped.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { runCli, type ServerProcess, startServerProcess } from '../support/process.ts'
import { basic, send } from '../support/service.ts'
import { openFeed } from '../support/sse.ts'

const examples = fileURLToPath(new URL('../../examples/events.json', import.meta.url))
const shutdownTimeoutMs = 5_000

describe('[sqlite] change feeds of a server process', () => {
  let dir: string
  let env: Record<string, string>
  let server: ServerProcess

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ers-feed-'))
    env = {
      DATABASE_URL: `sqlite:${join(dir, 'events.db')}`,
      SEED: 'false',
      ADMIN_PASSWORD: 'admin-password-1',
      SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
    }
    server = await startServerProcess(env)
  })

  after(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  it('shows an import made by the CLI from another process as reset within a few seconds', async () => {
    const feed = await openFeed(server.baseUrl)
    try {
      const result = await runCli(['import', examples], { DATABASE_URL: env.DATABASE_URL as string })
      assert.equal(result.code, 0, result.stderr)
      await feed.until(() => feed.events.some((e) => e.event === 'reset'), 'the reset of the import', 5_000)
    } finally {
      feed.close()
    }
  })

  it('ends open feeds on SIGTERM and exits 0 within SHUTDOWN_TIMEOUT_MS; the client resumes afterwards', async () => {
    const feeds = await Promise.all([openFeed(server.baseUrl), openFeed(server.baseUrl)])
    const created = await send(server.baseUrl, 'POST', '/events', {
      headers: { authorization: basic('admin', 'admin-password-1'), 'content-type': 'application/json' },
      body: { title: 'Before the restart', date: '2027-01-01T10:00:00Z', location_id: 1 },
    })
    assert.equal(created.status, 201, created.text)
    const [last] = await (feeds[0] as (typeof feeds)[0]).take(1)
    const started = Date.now()
    server.child.kill('SIGTERM')
    await Promise.all(feeds.map((feed) => feed.ended))
    const { code } = await server.exited
    assert.equal(code, 0, server.output() + server.errors())
    assert.ok(Date.now() - started < shutdownTimeoutMs, 'the feeds did not hold the drain up')

    server = await startServerProcess(env)
    const resumed = await openFeed(server.baseUrl, { 'last-event-id': String(last?.id) })
    try {
      const again = await send(server.baseUrl, 'DELETE', `/events/${created.json().id}`, {
        headers: { authorization: basic('admin', 'admin-password-1') },
      })
      assert.equal(again.status, 204)
      const [next] = await resumed.take(1)
      assert.equal(next?.event, 'deleted')
      assert.equal(Number(next?.id), Number(last?.id) + 1)
    } finally {
      resumed.close()
      server.child.kill('SIGTERM')
      await server.exited
    }
  })
})

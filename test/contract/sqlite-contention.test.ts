// SQLite under contention (CONTRACT.md §5: 503 with Retry-After while the database cannot serve a
// write). Another connection to the same file — in this process, or in another process as
// `ers import` would be — holds the write lock with BEGIN IMMEDIATE. WAL keeps reads going; a
// write waits SQLITE_BUSY_WAIT_MS without blocking the event loop, then answers 503.
import assert from 'node:assert/strict'
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import Sqlite from 'better-sqlite3'
import { assertProblem, contractService, jsonHeaders, types } from '../support/contract.ts'
import type { Response } from '../support/service.ts'
import type { StoreTarget } from '../support/stores.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** A SQLite target whose file path the test knows, so that it can open the file itself. */
function sqliteFileTarget(): StoreTarget & { readonly path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ers-contention-'))
  const path = join(dir, 'events.db')
  return {
    name: 'sqlite',
    path,
    async create() {
      return {
        databaseUrl: `sqlite:${path}`,
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      }
    },
  }
}

/** Something that holds the file's write lock until released. */
interface LockHolder {
  release(): Promise<void>
}

/** A second connection in this process takes the write lock. */
function holdInProcess(path: string): LockHolder {
  const connection = new Sqlite(path)
  connection.exec('begin immediate')
  return {
    async release() {
      connection.exec('rollback')
      connection.close()
    },
  }
}

// The child takes the lock, says so, and keeps it until its standard input ends.
const holderScript = `
const Sqlite = require('better-sqlite3')
const connection = new Sqlite(process.argv[1])
connection.exec('begin immediate')
process.stdout.write('locked\\n')
process.stdin.resume()
process.stdin.on('end', () => { connection.exec('rollback'); connection.close(); process.exit(0) })
`

/** Another process takes the write lock, as `ers import` or `ers users add` beside the server does. */
async function holdInChild(path: string): Promise<LockHolder> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['-e', holderScript, path], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let output = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  const exited = once(child, 'exit')
  // Waits for the child's word rather than for time to pass.
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      if (output.includes('locked\n')) resolve()
    })
    void exited.then(([code]) => reject(new Error(`the lock holder exited (${code}) early: ${output}`)))
  })
  return {
    async release() {
      child.stdin.end()
      const [code] = await exited
      assert.equal(code, 0, `the lock holder failed: ${output}`)
    },
  }
}

const holders: [string, (path: string) => Promise<LockHolder> | LockHolder][] = [
  ['another connection in the same process', holdInProcess],
  ['another process', holdInChild],
]

for (const [who, hold] of holders) {
  describe(`[sqlite] while ${who} holds the write lock`, () => {
    const target = sqliteFileTarget()
    // Short, so that each refused write costs the suite little.
    const ctx = contractService(target, { settings: { sqliteBusyWaitMs: '300' } })
    let event: { id: number; title: string; date: string }
    let etag: string | undefined
    let lock: LockHolder | undefined

    const put = (title: string) =>
      ctx.service.request('PUT', `/events/${event.id}`, {
        headers: jsonHeaders(ctx.service.editorAuth),
        body: { title, date: '2027-01-02T03:04:05Z' },
      })

    before(async () => {
      event = await ctx.createEvent({ title: 'Before the lock' })
      ;({ etag } = await ctx.readEvent(event.id))
      lock = await hold(target.path)
    })
    after(() => lock?.release())

    it('still serves GET /events/<id> and GET /events', async () => {
      const one = await ctx.http('GET', `/events/${event.id}`)
      assert.equal(one.status, 200, one.text)
      assert.equal(one.json().title, 'Before the lock')
      const all = await ctx.http('GET', '/events')
      assert.equal(all.status, 200, all.text)
      assert.equal(all.json().total, 1)
    })

    it('answers a PUT with 503, Retry-After and a problem body, and changes nothing', async () => {
      const res = await put('During the lock')
      assertProblem(res, 503)
      assert.match(res.header('retry-after') ?? '', /^[1-9]\d*$/, 'Retry-After in whole seconds')
      assert.equal(res.header('content-type'), types.problem)
      const read = await ctx.readEvent(event.id)
      assert.equal(read.event.title, 'Before the lock')
      assert.equal(read.etag, etag, 'the refused write left the ETag as it was')
    })

    it('answers a POST /events with 503 too, and creates nothing', async () => {
      const res = await ctx.service.request('POST', '/events', {
        headers: jsonHeaders(ctx.service.editorAuth),
        body: ctx.newEventBody(),
      })
      assertProblem(res, 503)
      assert.equal(await ctx.totalEvents(), 1)
    })

    it('keeps answering /health/live, one request after another, while a PUT waits for the lock', async () => {
      let putAnswered = false
      const waiting = put('During the lock').finally(() => {
        putAnswered = true
      })
      // A server whose event loop slept in SQLite's busy handler would answer none of these
      // until the PUT gave up: count how many come back while it is still waiting.
      let answeredWhileWaiting = 0
      while (!putAnswered) {
        const live: Response = await ctx.service.request('GET', '/health/live')
        assert.equal(live.status, 200, live.text)
        if (!putAnswered) answeredWhileWaiting++
      }
      assertProblem(await waiting, 503)
      assert.ok(
        answeredWhileWaiting >= 3,
        `/health/live answered only ${answeredWhileWaiting} times while the PUT waited`,
      )
    })

    it('accepts the same PUT once the lock is released', async () => {
      await lock?.release()
      lock = undefined
      const res = await put('After the lock')
      assert.equal(res.status, 200, res.text)
      assert.equal((await ctx.readEvent(event.id)).event.title, 'After the lock')
    })
  })
}

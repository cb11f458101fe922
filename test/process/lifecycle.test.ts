// The server as a process manager sees it: started with `npm start` as a user does, stopped with
// signals, drained within a deadline, and failing to start with one plain line a person can act on.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import Sqlite from 'better-sqlite3'
import { Agent, request } from 'undici'
import {
  connectionRefused,
  isRunning,
  listening,
  poll,
  requestInFlight,
  runServerToExit,
  spawnServer,
  startServerProcess,
} from '../support/process.ts'
import { postgres } from '../support/stores.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'

const dir = mkdtempSync(join(tmpdir(), 'ers-lifecycle-'))
after(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
/** A server environment on a new SQLite file of its own, without samples. */
const sqliteEnv = (extra: Record<string, string> = {}) => ({
  DATABASE_URL: `sqlite:${join(dir, `events-${++files}.db`)}`,
  SEED: 'false',
  ADMIN_PASSWORD: 'admin-password-1',
  ...extra,
})

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  return typeof address === 'object' && address ? address.port : 0
}

describe('the server under a process manager', () => {
  it('started with `npm start`, drains a request in flight on SIGTERM to npm, exits 0 and leaves no process', async () => {
    const server = await startServerProcess(sqliteEnv(), 'npm start')
    assert.notEqual(server.serverPid, server.child.pid, 'npm is the process the test started')
    const inFlight = await requestInFlight(server)
    // What a process manager or a container runtime does: signal the process it started.
    server.child.kill('SIGTERM')
    await poll(() => server.output().includes('shutting down'))
    assert.match(await inFlight.finish(), /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{"total":0,"events":\[\]\}$/)
    assert.deepEqual(await server.exited, { code: 0, signal: null })
    assert.equal(isRunning(server.serverPid), false, 'the server process is gone too')
    assert.ok(await connectionRefused(server.baseUrl), 'nothing listens on the port any more')
  })

  it('cuts the drain short at SHUTDOWN_TIMEOUT_MS, closing what is left, and exits 1 to say so', async () => {
    const server = await startServerProcess(sqliteEnv({ SHUTDOWN_TIMEOUT_MS: '300' }))
    const stuck = await requestInFlight(server)
    server.child.kill('SIGTERM')
    assert.equal(await stuck.closed, '', 'the unfinished request got no answer: its connection was closed')
    assert.deepEqual(await server.exited, { code: 1, signal: null })
    assert.match(server.output(), /drain deadline passed/)
  })

  it('exits at once on a second SIGTERM during a drain', async () => {
    const server = await startServerProcess(sqliteEnv({ SHUTDOWN_TIMEOUT_MS: '600000' }))
    const stuck = await requestInFlight(server)
    server.child.kill('SIGTERM')
    await poll(() => server.output().includes('shutting down'))
    // A repeat within half a second counts as the same signal delivered twice (terminal and npm).
    const first = Date.now()
    await poll(() => Date.now() - first > 600)
    assert.equal(isRunning(server.serverPid), true, 'still draining')
    server.child.kill('SIGTERM')
    assert.deepEqual(await server.exited, { code: 143, signal: null })
    await stuck.closed
  })

  it('is not held up by idle keep-alive connections', async () => {
    // Were the idle connection waited for, the deadline would cut the drain short: exit 1.
    const server = await startServerProcess(sqliteEnv({ SHUTDOWN_TIMEOUT_MS: '20000' }))
    const agent = new Agent({ keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000 })
    const res = await request(`${server.baseUrl}/events`, { dispatcher: agent })
    assert.equal(res.headers.connection, 'keep-alive')
    await res.body.text()
    server.child.kill('SIGTERM')
    assert.deepEqual(await server.exited, { code: 0, signal: null })
    assert.doesNotMatch(server.output(), /drain deadline/)
    await agent.close()
  })
})

describe('start-up problems', () => {
  it('refuses an ADMIN_PASSWORD that the password policy refuses, naming the rule', async () => {
    const result = await runServerToExit(sqliteEnv({ ADMIN_PASSWORD: 'pw' }))
    assert.equal(result.code, 2)
    assert.match(result.stderr, /ADMIN_PASSWORD: a password must have 8 to 1024 characters/)
    assert.doesNotMatch(result.stdout, /Server listening/)
  })

  it('says in one line when ADMIN_PASSWORD no longer applies because admin exists', async () => {
    const env = sqliteEnv({ ADMIN_PASSWORD: 'the-first-password' })
    const first = await startServerProcess(env)
    first.child.kill('SIGTERM')
    await first.exited
    const again = await startServerProcess({ ...env, ADMIN_PASSWORD: 'a-later-password' })
    const lines = again
      .errors()
      .split('\n')
      .filter((line) => line.includes('ADMIN_PASSWORD'))
    assert.equal(lines.length, 1, again.errors())
    assert.match(lines[0] ?? '', /user "admin" already exists with another password.*npx ers users add admin/)
    again.child.kill('SIGTERM')
    await again.exited
    const same = await startServerProcess(env)
    assert.doesNotMatch(same.errors(), /ADMIN_PASSWORD/, 'silent when it matches')
    same.child.kill('SIGTERM')
    await same.exited
  })

  it('waits while an import holds the SQLite write lock, then starts', async () => {
    const env = sqliteEnv({ SQLITE_BUSY_WAIT_MS: '100', DB_STARTUP_TIMEOUT_MS: '60000' })
    const first = await startServerProcess(env)
    first.child.kill('SIGTERM')
    await first.exited
    // What `ers import` does for its whole run: hold the write lock of the file.
    const importer = new Sqlite(env.DATABASE_URL.slice('sqlite:'.length))
    importer.exec('begin immediate')
    try {
      const spawned = spawnServer(env)
      await poll(() => /locked by another process.*database not reachable yet/.test(spawned.output()))
      importer.exec('rollback')
      const server = await listening(spawned)
      server.child.kill('SIGTERM')
      assert.equal((await server.exited).code, 0)
    } finally {
      if (importer.inTransaction) importer.exec('rollback')
      importer.close()
    }
  })

  it('fails with a plain line and a hint when the SQLite file cannot be created', async () => {
    const result = await runServerToExit({ ...sqliteEnv(), DATABASE_URL: 'sqlite:/etc/hostname/events.db' })
    assert.equal(result.code, 1)
    assert.match(
      result.stderr,
      /^ers: could not start: the SQLite file \/etc\/hostname\/events\.db cannot be opened or created\nhint: .+\n$/,
    )
  })

  it('keeps trying an unreachable PostgreSQL until DB_STARTUP_TIMEOUT_MS, logging each try, then says what is wrong', async () => {
    const port = await freePort()
    const result = await runServerToExit({
      DATABASE_URL: `postgres://postgres:secret-pw@127.0.0.1:${port}/events`,
      DB_STARTUP_TIMEOUT_MS: '1200',
    })
    assert.equal(result.code, 1)
    const tries = result.stdout.split('\n').filter((line) => line.includes('database not reachable yet'))
    assert.ok(tries.length >= 2, result.stdout)
    assert.match(
      result.stderr,
      new RegExp(
        `^ers: could not start: nothing accepts connections at 127\\.0\\.0\\.1:${port}\\nhint: is PostgreSQL running there\\?.*\\n$`,
      ),
    )
    assert.doesNotMatch(result.stdout + result.stderr, /secret-pw/, 'the password is never printed')
  })

  const pg = postgres
  it('names a PostgreSQL database that does not exist and how to create it', {
    skip: !pg && 'needs PostgreSQL',
  }, async () => {
    const made = await (pg as NonNullable<typeof pg>).create()
    const url = new URL(made.databaseUrl)
    await made.drop()
    const name = url.pathname.slice(1)
    const result = await runServerToExit({ DATABASE_URL: url.toString(), DB_STARTUP_TIMEOUT_MS: '0' })
    assert.equal(result.code, 1)
    assert.match(result.stderr, new RegExp(`database "${name}" does not exist`))
    assert.match(
      result.stderr,
      new RegExp(`hint: create it with: createdb -h 127\\.0\\.0\\.1 -p 5432 -U postgres ${name}`),
    )
  })

  it('starts once a PostgreSQL that was down comes up within DB_STARTUP_TIMEOUT_MS', {
    skip: !pg && 'needs PostgreSQL',
  }, async () => {
    const made = await (pg as NonNullable<typeof pg>).create()
    const url = new URL(made.databaseUrl)
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
    await proxy.cut('refuse')
    url.port = String(proxy.port)
    try {
      const spawned = spawnServer({
        ...sqliteEnv(),
        DATABASE_URL: url.toString(),
        DB_STARTUP_TIMEOUT_MS: '60000',
      })
      // A failed try is logged; then the database "comes up".
      await poll(() => spawned.output().includes('database not reachable yet'))
      await proxy.restore()
      const server = await listening(spawned)
      assert.match(server.output(), /database not reachable yet/)
      server.child.kill('SIGTERM')
      assert.equal((await server.exited).code, 0)
    } finally {
      await proxy.close()
      await made.drop()
    }
  })
})

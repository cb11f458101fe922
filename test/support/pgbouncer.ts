// A real PgBouncer (Debian's package) in transaction mode, on a free port with its configuration in a
// temporary directory, in front of the PostgreSQL server the tests use. Trust auth: the user must
// still be listed in auth_file, with any password.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './ports.ts'

const candidates = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']

/** The pgbouncer binary, or undefined when it is not installed. */
export const pgbouncerBinary = candidates.find((path) => existsSync(path))

/** Why the PgBouncer tests are skipped, or undefined when they run. */
export const pgbouncerSkipReason = pgbouncerBinary
  ? undefined
  : 'pgbouncer is not installed (apt-get install pgbouncer)'

if (pgbouncerSkipReason) {
  if (process.env.CI === 'true') throw new Error(`CI=true but ${pgbouncerSkipReason}`)
  process.stderr.write(`note: PgBouncer tests are skipped: ${pgbouncerSkipReason}\n`)
}

export interface Bouncer {
  /** `postgres://user@127.0.0.1:<port>/<database>` through PgBouncer. */
  url(database: string): string
  stop(): Promise<void>
  /** Stops it at once, for a process's 'exit' handler, where nothing can be awaited. */
  stopNow(): void
  /** Lets this test process end while PgBouncer runs (then stopNow on 'exit' stops it). */
  unref(): void
}

async function accepting(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      // Closed either way: PgBouncer would hold an open one for client_login_timeout (60 s), and
      // with it the test process.
      const answer = (ok: boolean) => {
        socket.destroy()
        resolve(ok)
      }
      socket.once('connect', () => answer(true))
      socket.once('error', () => answer(false))
      socket.setTimeout(500, () => answer(false))
    }).catch(() => false)
    if (ok) return
    if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Starts PgBouncer in transaction mode in front of `server` (an admin URL of PostgreSQL). */
export async function startPgbouncer(server: string): Promise<Bouncer> {
  if (!pgbouncerBinary) throw new Error(pgbouncerSkipReason)
  const upstream = new URL(server)
  const user = decodeURIComponent(upstream.username) || 'postgres'
  const dir = mkdtempSync(join(tmpdir(), 'ers-pgbouncer-'))
  const port = await freePort()
  // The same file as docs/operations.md shows, with the test's port and directory.
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    `[databases]
* = host=${upstream.hostname} port=${upstream.port || 5432}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'userlist.txt')}
pool_mode = transaction
max_client_conn = 200
default_pool_size = 20
logfile = ${join(dir, 'pgbouncer.log')}
`,
  )
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`)
  // PgBouncer refuses to run as root; as root, it is told to become postgres.
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString())
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString())
    chownSync(dir, uid, gid)
    chmodSync(dir, 0o700)
  }
  const child: ChildProcess = spawn(
    pgbouncerBinary,
    [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  try {
    await Promise.race([
      accepting(port, 5_000),
      once(child, 'exit').then(() => {
        throw new Error(`pgbouncer exited: ${stderr}`)
      }),
    ])
  } catch (error) {
    child.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return {
    url: (database) => `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGINT')
        await once(child, 'exit')
      }
      rmSync(dir, { recursive: true, force: true })
    },
    unref() {
      child.unref()
      ;(child.stderr as Socket | null)?.unref()
    },
    stopNow() {
      // SIGINT would wait for its clients; at exit, nothing is left to wait for.
      if (child.exitCode === null) child.kill('SIGTERM')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

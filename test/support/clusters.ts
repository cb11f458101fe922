// Throw-away PostgreSQL clusters for the failover and replica tests: a primary and a streaming
// standby (pg_basebackup -R -X stream), optionally synchronous, each on a free port under one
// temporary directory, run as the `postgres` user (initdb refuses root). Never the machine's own
// cluster: everything lives under the directory, which `stop()` removes after stopping both.
import { execFile as execFileCallback, execFileSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { appendFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { freePort } from './ports.ts'

const execFile = promisify(execFileCallback)

/** The newest PostgreSQL server binaries installed (Debian puts them under /usr/lib/postgresql/N/bin). */
export const postgresBin = (() => {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin')
})()

/** Why the cluster tests are skipped, or undefined when they run. */
export const clusterSkipReason = postgresBin
  ? undefined
  : 'PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) are not installed under /usr/lib/postgresql'

if (clusterSkipReason) {
  if (process.env.CI === 'true') throw new Error(`CI=true but ${clusterSkipReason}`)
  process.stderr.write(`note: cluster tests are skipped: ${clusterSkipReason}\n`)
}

// initdb and postgres refuse to run as root: as root, they run as postgres.
const asRoot = process.getuid?.() === 0
const owner = asRoot
  ? {
      uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
      gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
    }
  : undefined

async function run(tool: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFile(join(postgresBin as string, tool), args, {
      ...owner,
      // Run from a directory the postgres user may read.
      cwd: tmpdir(),
      env: { ...process.env, LC_ALL: 'C' },
    })
    return stdout
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string }
    throw new Error(`${tool} ${args.join(' ')} failed: ${stderr || stdout || (error as Error).message}`)
  }
}

export interface Node {
  readonly port: number
  readonly dataDir: string
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database?: string): string
}

export interface ReplicatedPair {
  readonly primary: Node
  readonly standby: Node
  /** libpq's multi-host URL naming primary then standby, with target_session_attrs. */
  multiHostUrl(database: string, attrs?: string): string
  /** Kills the primary at once (pg_ctl -m immediate stop): no shutdown checkpoint, as in a crash. */
  killPrimary(): Promise<void>
  /** Stops the standby (fast shutdown); a synchronous primary's commits then wait for it. */
  stopStandby(): Promise<void>
  /** Starts the stopped standby again, still a standby. */
  startStandby(): Promise<void>
  /** Promotes the standby and waits until it takes writes. */
  promoteStandby(): Promise<void>
  /** Stops whatever still runs and removes the directory; safe to call more than once. */
  stop(): Promise<void>
}

const settings = (port: number, dir: string) => `
listen_addresses = '127.0.0.1'
port = ${port}
unix_socket_directories = '${dir}'
wal_level = replica
max_wal_senders = 5
hot_standby = on
max_connections = 100
shared_buffers = 32MB
# A throw-away cluster: the OS cache is durable enough for an immediate stop (not a power cut).
fsync = off
full_page_writes = off
logging_collector = off
`

function node(dir: string, name: string, port: number): Node {
  return {
    port,
    dataDir: join(dir, name),
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
  }
}

async function pgCtl(n: Node, dir: string, action: string, ...extra: string[]) {
  const name = n.dataDir.split('/').at(-1)
  await run('pg_ctl', ['-D', n.dataDir, '-l', join(dir, `${name}.log`), '-w', '-t', '60', action, ...extra])
}

/** Runs `text` on `url` with a client of its own. */
export async function query(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 })
  client.on('error', () => {})
  await client.connect()
  try {
    return await client.query(text, values)
  } finally {
    await client.end().catch(() => {})
  }
}

async function until(holds: () => Promise<boolean>, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await holds().catch(() => false)) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * A primary and a streaming standby; `synchronous`: the primary waits for the standby's flush
 * before it answers a commit (synchronous_standby_names), so nothing acknowledged is lost when
 * it dies. The promoted standby runs without a synchronous standby of its own.
 */
export async function startReplicatedPair({ synchronous = true } = {}): Promise<ReplicatedPair> {
  if (!postgresBin) throw new Error(clusterSkipReason)
  const dir = mkdtempSync(join(tmpdir(), 'ers-cluster-'))
  if (owner) chownSync(dir, owner.uid, owner.gid)
  chmodSync(dir, 0o700)
  const primary = node(dir, 'primary', await freePort())
  const standby = node(dir, 'standby', await freePort())
  const running = new Set<Node>()
  const stop = async () => {
    for (const n of running) await pgCtl(n, dir, 'stop', '-m', 'immediate').catch(() => {})
    running.clear()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await run('initdb', ['-D', primary.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'])
    await appendFile(join(primary.dataDir, 'postgresql.conf'), settings(primary.port, dir))
    await pgCtl(primary, dir, 'start')
    running.add(primary)
    await run('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'],
      ...['-D', standby.dataDir, '-R', '-X', 'stream', '--no-sync', '-c', 'fast'],
    ])
    // The copy carries the primary's settings: only the port differs; the walreceiver reports
    // cluster_name as its application_name, which synchronous_standby_names names.
    await appendFile(
      join(standby.dataDir, 'postgresql.conf'),
      `${settings(standby.port, dir)}cluster_name = 'standby1'\n`,
    )
    await pgCtl(standby, dir, 'start')
    running.add(standby)
    if (synchronous) {
      await query(primary.url(), "alter system set synchronous_standby_names = 'standby1'")
      await query(primary.url(), 'select pg_reload_conf()')
    }
    await until(async () => {
      const { rows } = await query(primary.url(), 'select sync_state from pg_stat_replication')
      return rows.some((row) => row.sync_state === (synchronous ? 'sync' : 'async'))
    }, 'the standby to stream from the primary')
  } catch (error) {
    await stop()
    throw error
  }
  return {
    primary,
    standby,
    multiHostUrl: (database, attrs = 'read-write') =>
      `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/${database}?target_session_attrs=${attrs}`,
    async killPrimary() {
      await pgCtl(primary, dir, 'stop', '-m', 'immediate')
      running.delete(primary)
    },
    async stopStandby() {
      await pgCtl(standby, dir, 'stop', '-m', 'fast')
      running.delete(standby)
    },
    async startStandby() {
      await pgCtl(standby, dir, 'start')
      running.add(standby)
    },
    async promoteStandby() {
      await pgCtl(standby, dir, 'promote')
      await until(
        async () => (await query(standby.url(), 'select pg_is_in_recovery() as r')).rows[0]?.r === false,
        'the promoted standby to leave recovery',
      )
    },
    stop,
  }
}

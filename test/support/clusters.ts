// PostgreSQL clusters of a test's own: a primary made with initdb and streaming replicas made from
// it with pg_basebackup, each on a free port under one temporary directory, run as the `postgres`
// user with PostgreSQL 15's binaries. Never the machine's own cluster on 5432. Every cluster is
// stopped and its directory removed by destroy(), and by an exit handler should the test die first.
import { execFile, execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const binaries = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin'

/** Why the cluster tests are skipped, or undefined when they run. */
export const clusterSkipReason = existsSync(join(binaries, 'initdb'))
  ? undefined
  : `PostgreSQL's initdb is not in ${binaries} (set PG_BIN)`

if (clusterSkipReason) {
  if (process.env.CI === 'true') throw new Error(`CI=true but ${clusterSkipReason}`)
  process.stderr.write(`note: PostgreSQL cluster tests are skipped: ${clusterSkipReason}\n`)
}

const asRoot = process.getuid?.() === 0

/** Runs a PostgreSQL binary as `postgres` (PostgreSQL refuses to run as root). */
async function pg(binary: string, args: readonly string[]): Promise<string> {
  const path = join(binaries, binary)
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, [...args]]
  try {
    return (await run(command, argv, { timeout: 120_000 })).stdout
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string }
    throw new Error(`${binary} ${args.join(' ')} failed: ${stderr || stdout || (error as Error).message}`)
  }
}

async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  server.close()
  await once(server, 'close')
  return port
}

export interface Cluster {
  readonly port: number
  readonly dataDir: string
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database?: string): string
  /** `pg_ctl stop`: `fast` by default, `immediate` for a crash. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  start(): Promise<void>
}

export interface ClusterSet {
  readonly primary: Cluster
  /** Makes a streaming replica of the primary (pg_basebackup -R -X stream) and starts it. */
  addReplica(): Promise<Cluster>
  /** Stops every cluster and removes the directory, whatever state they are in. */
  destroy(): Promise<void>
}

const live = new Set<string>()
let exitHandler = false
function removeOnExit(dir: string) {
  live.add(dir)
  if (exitHandler) return
  exitHandler = true
  process.on('exit', () => {
    for (const left of live) {
      for (const data of ['primary', 'replica-1', 'replica-2', 'replica-3']) {
        const path = join(left, data)
        if (!existsSync(join(path, 'postmaster.pid'))) continue
        const stop = ['-D', path, '-m', 'immediate', 'stop']
        try {
          if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', join(binaries, 'pg_ctl'), ...stop])
          else execFileSync(join(binaries, 'pg_ctl'), stop)
        } catch {}
      }
      rmSync(left, { recursive: true, force: true })
    }
  })
}

function cluster(dir: string, name: string, port: number): Cluster {
  const dataDir = join(dir, name)
  return {
    port,
    dataDir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop(mode = 'fast') {
      if (existsSync(join(dataDir, 'postmaster.pid')))
        await pg('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop'])
    },
    async start() {
      await pg('pg_ctl', ['-D', dataDir, '-l', join(dir, `${name}.log`), '-w', 'start'])
    },
  }
}

/** Settings of a small cluster that streams to replicas; the test's own, on its own port. */
function settings(port: number, socketDir: string) {
  return [
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${socketDir}'`,
    'wal_level = replica',
    'max_wal_senders = 10',
    'hot_standby = on',
    'shared_buffers = 32MB',
    'max_connections = 60',
    // A test's data is thrown away: no need to wait for the disk.
    'fsync = off',
    'full_page_writes = off',
    '',
  ].join('\n')
}

/** initdb and start a primary on a free port under a new temporary directory. */
export async function startPrimary(): Promise<ClusterSet> {
  const dir = mkdtempSync(join(tmpdir(), 'ers-clusters-'))
  removeOnExit(dir)
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString())
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString())
    chownSync(dir, uid, gid)
  }
  const made: Cluster[] = []
  const destroy = async () => {
    for (const each of made.reverse()) await each.stop('immediate').catch(() => {})
    rmSync(dir, { recursive: true, force: true })
    live.delete(dir)
  }
  try {
    const port = await freePort()
    const primary = cluster(dir, 'primary', port)
    made.push(primary)
    // initdb's default pg_hba.conf trusts replication connections from 127.0.0.1 too.
    await pg('initdb', ['-D', primary.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync'])
    appendFileSync(join(primary.dataDir, 'postgresql.conf'), settings(port, dir))
    await primary.start()
    let replicas = 0
    return {
      primary,
      async addReplica() {
        replicas++
        const replica = cluster(dir, `replica-${replicas}`, await freePort())
        made.push(replica)
        await pg('pg_basebackup', [
          ...['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'],
          ...['-D', replica.dataDir, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync'],
        ])
        appendFileSync(join(replica.dataDir, 'postgresql.conf'), settings(replica.port, dir))
        await replica.start()
        return replica
      },
      destroy,
    }
  } catch (error) {
    await destroy()
    throw error
  }
}

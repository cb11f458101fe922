// Databases of the harness's own: made for a run, copied for the baseline, dropped afterwards.
import { randomBytes } from 'node:crypto'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export type StoreName = 'sqlite' | 'postgres'

export interface Database {
  readonly url: string
  drop(): Promise<void>
}

export interface DatabaseFactory {
  readonly store: StoreName
  /** A new, empty database. */
  create(): Promise<Database>
  /** A new database holding what `source` holds now (nothing may be connected to it). */
  copy(source: Database): Promise<Database>
  /**
   * Waits until no statement runs in `databases` any more, cancelling what still runs after
   * `waitMs`; returns how many it cancelled. A request the load generator stopped waiting for
   * goes on in a database server: at a million events the baseline's OFFSET pages take seconds,
   * and they would slow whatever is measured next. (SQLite runs inside the server processes,
   * which finish their requests themselves.)
   */
  settle?(databases: readonly Database[], waitMs: number): Promise<number>
  /**
   * The process ids of the database server's processes that serve `databases`, when that server
   * runs on this machine (PostgreSQL on a loopback address): the harness moves them off the
   * server's core (pinning.ts). Empty when they are elsewhere or unknown.
   */
  backends?(databases: readonly Database[]): Promise<number[]>
}

export function sqliteDatabases(): DatabaseFactory {
  const newFile = () => {
    const dir = mkdtempSync(join(tmpdir(), 'ers-bench-'))
    const path = join(dir, 'events.db')
    return { path, url: `sqlite:${path}`, drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  return {
    store: 'sqlite',
    async create() {
      const { url, drop } = newFile()
      return { url, drop }
    },
    async copy(source) {
      const from = source.url.slice('sqlite:'.length)
      const target = newFile()
      // The importer closed its connection, which checkpoints the WAL; copy one if it is there.
      for (const suffix of ['', '-wal']) {
        if (existsSync(from + suffix)) copyFileSync(from + suffix, target.path + suffix)
      }
      return { url: target.url, drop: target.drop }
    },
  }
}

/** Runs `work` on a connection of its own to `url`, closed afterwards. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 })
  client.on('error', () => {})
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

export function postgresDatabases(adminUrl: string): DatabaseFactory {
  const named = async (create: (quoted: string) => string): Promise<Database> => {
    const name = `ers_bench_${randomBytes(6).toString('hex')}`
    const quoted = `"${name}"` // [a-z0-9_] only: nothing to escape
    await withClient(adminUrl, (c) => c.query(create(quoted)))
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    return {
      url: url.toString(),
      drop: () =>
        withClient(adminUrl, (c) => c.query(`drop database if exists ${quoted} with (force)`)).then(() => {}),
    }
  }
  return {
    store: 'postgres',
    create: () => named((quoted) => `create database ${quoted}`),
    // A file-level copy of the template: seconds even at a million events.
    copy: (source) =>
      named((quoted) => `create database ${quoted} template "${new URL(source.url).pathname.slice(1)}"`),
    settle: (databases, waitMs) =>
      withClient(adminUrl, async (client) => {
        const names = databases.map((database) => new URL(database.url).pathname.slice(1))
        const running = `from pg_stat_activity where datname = any($1) and state = 'active' and pid <> pg_backend_pid()`
        const deadline = Date.now() + waitMs
        while (Date.now() < deadline) {
          const { rows } = await client.query(`select count(*)::int as n ${running}`, [names])
          if (rows[0]?.n === 0) return 0
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        const { rows } = await client.query(
          `select count(*)::int as n from (select pg_cancel_backend(pid) ${running}) c`,
          [names],
        )
        return Number(rows[0]?.n ?? 0)
      }),
    backends: async (databases) => {
      if (!loopback.has(new URL(adminUrl).hostname)) return []
      const names = databases.map((database) => new URL(database.url).pathname.slice(1))
      const { rows } = await withClient(adminUrl, (client) =>
        client.query<{ pid: number }>('select pid from pg_stat_activity where datname = any($1)', [names]),
      )
      // A pid is this machine's only if a postgres process holds it here.
      return rows.map((row) => row.pid).filter((pid) => processName(pid) === 'postgres')
    },
  }
}

const loopback = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])

function processName(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
  } catch {
    return undefined
  }
}

// The writes measured, and how: the service's own write path (the store's updateEvent as an
// authenticated PUT calls it, and createEvent as POST does), or the same statements' shape on a
// bare table; batches timed by the wall clock and by CPU time, this process's and, on PostgreSQL,
// that of the database's backends.
import { readFileSync } from 'node:fs'
import Sqlite from 'better-sqlite3'
import pg from 'pg'
import type { CredentialCheck } from '../../src/domain/types.ts'
import type { NewEvent } from '../../src/store/event-store.ts'
import { openStore } from '../../src/store/open-store.ts'
import { titleColumns } from '../../src/store/writes/stored-text.ts'
import { withClient } from '../databases.ts'
import { locationsFor } from '../dataset.ts'
import { benchmarkDate } from '../seed-store.ts'

export interface PlannedPut {
  readonly id: number
  readonly title: string
  readonly date: number
}

export interface WritePlan {
  readonly puts: readonly PlannedPut[]
  readonly posts: readonly NewEvent[]
}

/** A date bucket (event-buckets.ts): 2^28 ms of starts_at. */
const bucketMs = 2 ** 28
const firstDate = benchmarkDate(0)
const dateSpan = 10_000_019 * 60_000

/** A small seeded generator: every configuration makes the same writes. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/**
 * `count` PUTs of random imported events, each changing the title (so the folded title and its
 * search index move; with `keepTitles`, the title is sent as stored) and moving the date into
 * another date bucket within the data's range (so the date indexes and the bucket trigger move);
 * and `count` POSTs at random locations.
 */
export function writePlan(events: number, count: number, keepTitles = false): WritePlan {
  const next = random(42)
  const dates = new Map<number, number>()
  const puts = Array.from({ length: count }, (_, n): PlannedPut => {
    const id = 1 + Math.floor(next() * events)
    const current = dates.get(id) ?? benchmarkDate(id)
    let date = firstDate + ((current - firstDate + (1 + Math.floor(next() * 64)) * bucketMs) % dateSpan)
    if (Math.floor(date / bucketMs) === Math.floor(current / bucketMs))
      date = firstDate + ((date - firstDate + bucketMs) % dateSpan)
    dates.set(id, date)
    // keepTitles: a PUT that moves the date and sends the title as stored.
    return {
      id,
      title: keepTitles ? `Benchmark event #${id}` : `Benchmark event #${id}, edit ${n + 1}`,
      date,
    }
  })
  const locations = locationsFor(events)
  const posts = Array.from(
    { length: count },
    (_, n): NewEvent => ({
      title: `Created event ${n + 1}`,
      date: firstDate + Math.floor(next() * (dateSpan / 60_000)) * 60_000,
      locationId: 1 + Math.floor(next() * locations),
    }),
  )
  return { puts, posts }
}

export interface Writer {
  put(write: PlannedPut): Promise<unknown>
  post(event: NewEvent): Promise<unknown>
  close(): Promise<void>
}

/** The service's write path: the store as the routes call it (src/http/routes/events.ts). */
export function serviceWriter(url: string, asUser: CredentialCheck): Writer {
  const store = openStore(url)
  return {
    // PUT: title and date, no precondition, the remembered editor confirmed in the statement.
    put: ({ id, title, date }) => store.updateEvent(id, { title, date }, undefined, asUser),
    post: (event) => store.createEvent(event),
    close: () => store.close(),
  }
}

/** The bare table: the events' columns, the primary key alone; no trigger, no change log. */
export const bareTable = 'events_bare'

const bareUpdate = `update ${bareTable} set title = ?, title_folded = ?, starts_at = ?, version = version + 1 where id = ? returning *`
const bareInsert = `insert into ${bareTable} (title, title_folded, starts_at, location_id) values (?, ?, ?, ?) returning *`
const numbered = (sql: string) => {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

/**
 * Makes the bare table beside `events`, with its columns as the catalog describes them and its
 * rows. SQLite's key is a plain rowid (no AUTOINCREMENT: that is the schema's, too).
 */
export async function makeBareTable(url: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const db = new Sqlite(url.slice('sqlite:'.length))
    try {
      const columns = db
        .prepare(
          `select name, type, "notnull" as not_null, dflt_value as dflt, pk from pragma_table_info('events')`,
        )
        .all() as { name: string; type: string; not_null: number; dflt: string | null; pk: number }[]
      const defined = columns.map((c) =>
        c.pk
          ? `"${c.name}" integer primary key`
          : `"${c.name}" ${c.type}${c.not_null ? ' not null' : ''}${c.dflt === null ? '' : ` default ${c.dflt}`}`,
      )
      const names = columns.map((c) => `"${c.name}"`).join(', ')
      db.exec(`create table ${bareTable} (${defined.join(', ')});
        insert into ${bareTable} (${names}) select ${names} from events;`)
    } finally {
      db.close()
    }
    return
  }
  await withClient(url, async (client) => {
    await client.query(`create table ${bareTable} (like events including defaults including identity)`)
    await client.query(`insert into ${bareTable} select * from events`)
    await client.query(`alter table ${bareTable} add primary key (id)`)
    await client.query(
      `select setval(pg_get_serial_sequence('${bareTable}', 'id'), (select max(id) from ${bareTable}))`,
    )
    await client.query(`vacuum (analyze) ${bareTable}`)
  })
}

/** The bare table's writes: the same UPDATE and INSERT shape, one statement each, one round trip. */
export async function bareWriter(url: string): Promise<Writer> {
  if (url.startsWith('sqlite:')) {
    // The service's settings (dialects/sqlite.ts).
    const db = new Sqlite(url.slice('sqlite:'.length))
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('foreign_keys = ON')
    const update = db.prepare(bareUpdate)
    const insert = db.prepare(bareInsert)
    return {
      put: async ({ id, title, date }) => update.get(title, titleColumns(title).title_folded, date, id),
      post: async ({ title, date, locationId }) =>
        insert.get(title, titleColumns(title).title_folded, date, locationId),
      close: async () => {
        db.close()
      },
    }
  }
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  const update = { name: 'bare-update', text: numbered(bareUpdate) }
  const insert = { name: 'bare-insert', text: numbered(bareInsert) }
  return {
    put: ({ id, title, date }) =>
      client.query({ ...update, values: [title, titleColumns(title).title_folded, date, id] }),
    post: ({ title, date, locationId }) =>
      client.query({ ...insert, values: [title, titleColumns(title).title_folded, date, locationId] }),
    close: () => client.end(),
  }
}

/** One batch's figures, each per write. */
export interface BatchFigures {
  readonly wallUs: number
  /** This process's CPU time (user + system). */
  readonly processCpuUs: number
  /** PostgreSQL's backends' CPU time for this database; undefined on SQLite (it runs in this process). */
  readonly serverCpuUs: number | undefined
}

/** CPU time so far, in µs, per process id. */
export type CpuByProcess = ReadonlyMap<number, number>

/**
 * The CPU time so far, in µs, of each PostgreSQL client backend serving database `name`, when the
 * server runs on this machine (/proc/<pid>/schedstat: ns on the CPU); undefined otherwise.
 * Autovacuum's workers are left out: when they run is the server's choice, not the write's.
 * `admin` is a connection to another database of the server, which the caller keeps open.
 */
export function backendCpu(admin: pg.Client, name: string): () => Promise<CpuByProcess | undefined> {
  const host = admin.host
  const local = ['127.0.0.1', 'localhost', '::1', ''].includes(host) || host.startsWith('/')
  return async () => {
    if (!local) return undefined
    const { rows } = await admin.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend'`,
      [name],
    )
    const cpu = new Map<number, number>()
    for (const { pid } of rows) {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('postgres')) return undefined
        cpu.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1_000)
      } catch {
        // Gone since it was listed: its time is not known.
      }
    }
    return cpu
  }
}

/** The CPU time spent between two readings by the processes of the second (a new one: all of its own). */
const spentBetween = (before: CpuByProcess, after: CpuByProcess) =>
  [...after].reduce((sum, [pid, us]) => sum + us - (before.get(pid) ?? 0), 0)

/** Runs `count` writes one after another, as one batch, and returns its figures per write. */
export async function timedBatch(
  count: number,
  write: (n: number) => Promise<unknown>,
  serverCpu: (() => Promise<CpuByProcess | undefined>) | undefined,
): Promise<BatchFigures> {
  const serverBefore = await serverCpu?.()
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  for (let n = 0; n < count; n++) await write(n)
  const wallUs = ((performance.now() - started) * 1_000) / count
  const cpu = process.cpuUsage(cpuBefore)
  const serverAfter = await serverCpu?.()
  return {
    wallUs,
    processCpuUs: (cpu.user + cpu.system) / count,
    serverCpuUs:
      serverBefore === undefined || serverAfter === undefined
        ? undefined
        : spentBetween(serverBefore, serverAfter) / count,
  }
}

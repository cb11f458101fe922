// What each index and trigger costs an event write, and the write against a bare table.
//
//   node --import tsx bench/write-cost.ts [--store sqlite|postgres] [--events N] [--writes N]
//     [--batches B] [--rounds R] [--keep-titles] [--database-url URL] [--results-dir DIR]
//   node --import tsx bench/write-cost.ts --combine A.json B.json C.json   (the medians of runs)
//
// A new database (SQLite: a temporary file; PostgreSQL: `ers_bench_<random>` on --database-url,
// dropped at the end, also on error or Ctrl-C), migrated and filled with N events through the
// store's own importer (seed-store.ts), plus an editor. Then, each on a fresh copy of it:
// 1. the full schema as migrated;
// 2. the full schema minus one index, trigger or foreign key at a time: every one on the tables an
//    event write touches, read from the catalog (write-cost/catalog.ts);
// 3. a bare table: the events' columns with the primary key alone, no trigger, no change log,
//    written with the same UPDATE and INSERT shape in one statement (write-cost/measure.ts);
// and the full schema on a second copy, to show how far apart two identical configurations measure.
// Each configuration makes the same writes: the service's own write path for an authenticated
// PUT (the store's updateEvent, title and date changed) and for a POST (createEvent), one after
// another, in B batches of N after a warm-up. All copies are open at once and take their batches
// in turn, so that each batch is compared with the full schema's batch of the same cycle. Per
// write: the wall-clock time and the CPU time (this process's; on PostgreSQL its backends' too),
// the median over the batches, then over R rounds (each on fresh copies). Prints a table per
// operation and writes the JSON to --results-dir (default bench/results/).
//
// Dropping a part breaks what it keeps: without the count triggers the counts go wrong, without
// the search index `q` finds nothing new. Each copy is thrown away after its measurement.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import Sqlite from 'better-sqlite3'
import pg from 'pg'
import { hashPassword } from '../src/auth/passwords.ts'
import type { NewEvent } from '../src/store/event-store.ts'
import { openStore } from '../src/store/open-store.ts'
import { type Database, postgresDatabases, sqliteDatabases, withClient } from './databases.ts'
import { repoRoot } from './processes.ts'
import { seedThroughImporter } from './seed-store.ts'
import { postgresParts, type SchemaPart, sqliteParts } from './write-cost/catalog.ts'
import {
  type BatchFigures,
  backendCpu,
  bareWriter,
  type CpuByProcess,
  makeBareTable,
  type PlannedPut,
  serviceWriter,
  timedBatch,
  type Writer,
  writePlan,
} from './write-cost/measure.ts'
import {
  type Configuration,
  combine,
  type Measured,
  median,
  type Outcome,
  report,
  summarise,
  type WriteCostResult,
} from './write-cost/report.ts'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    combine: { type: 'boolean', default: false },
    'keep-titles': { type: 'boolean', default: false },
    store: { type: 'string', default: 'sqlite' },
    events: { type: 'string', default: '10000' },
    writes: { type: 'string', default: '100' },
    batches: { type: 'string', default: '15' },
    rounds: { type: 'string', default: '3' },
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    'results-dir': { type: 'string', default: 'bench/results' },
  },
})
if (values.combine) {
  // --combine A.json B.json …: the medians of several runs' figures, as one table.
  const results = positionals.map((file) => JSON.parse(readFileSync(file, 'utf8')) as WriteCostResult)
  process.stdout.write(report(combine(results)))
  process.exit(0)
}
const store = values.store
if (store !== 'sqlite' && store !== 'postgres') throw new Error(`--store sqlite or postgres, not ${store}`)
const events = Number(values.events)
const writes = Number(values.writes)
const batches = Number(values.batches)
const rounds = Number(values.rounds)
const adminUrl = values['database-url'] as string
const log = (line: string) => process.stdout.write(`${line}\n`)
const factory = store === 'postgres' ? postgresDatabases(adminUrl) : sqliteDatabases()
const warmup = Math.min(writes, 50)
const plan = writePlan(events, warmup + batches * writes, values['keep-titles'])
const user = { name: 'bench', passwordHash: await hashPassword('bench-write-cost') }

/** On PostgreSQL, a connection to the admin database that asks which backends serve each copy. */
const admin = store === 'postgres' ? new pg.Client({ connectionString: adminUrl }) : undefined
admin?.on('error', () => {})
await admin?.connect()

/** Every database made and not yet dropped: dropped on the way out, whichever way that is. */
const live = new Set<Database>()
const dropAll = () => Promise.allSettled([...live].map((database) => database.drop()))
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: dropping the databases`)
    void dropAll().then(() => process.exit(130))
  })
}
const made = async (database: Promise<Database>) => {
  const ready = await database
  live.add(ready)
  return ready
}
const dropped = async (database: Database) => {
  await database.drop()
  live.delete(database)
}

/** Runs SQL on a database of the bench's own, outside any store. */
async function execute(url: string, statements: readonly string[]): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const db = new Sqlite(url.slice('sqlite:'.length))
    try {
      for (const statement of statements) db.exec(statement)
    } finally {
      db.close()
    }
    return
  }
  await withClient(url, async (client) => {
    for (const statement of statements) await client.query(statement)
  })
}

async function schemaParts(url: string): Promise<{ tables: string[]; parts: SchemaPart[] }> {
  if (url.startsWith('sqlite:')) {
    const db = new Sqlite(url.slice('sqlite:'.length), { readonly: true })
    try {
      return sqliteParts(db)
    } finally {
      db.close()
    }
  }
  return withClient(url, postgresParts)
}

/** A configuration made ready on its own fresh copy: its writer, or why it cannot be measured. */
interface Prepared {
  readonly copy: Database
  writer?: Writer
  serverCpu?: () => Promise<CpuByProcess | undefined>
  outcome: Measured | { failed: string }
}

async function prepare(template: Database, configuration: Configuration): Promise<Prepared> {
  const copy = await made(factory.copy(template))
  const failed = (why: string): Prepared => ({ copy, outcome: { failed: why } })
  const drop = configuration.part?.drop
  if (drop && !Array.isArray(drop)) return failed((drop as { unavailable: string }).unavailable)
  try {
    if (drop) await execute(copy.url, drop as string[])
  } catch (error) {
    return failed(`cannot be dropped alone: ${(error as Error).message}`)
  }
  if (configuration.bare) await makeBareTable(copy.url)
  const writer = configuration.bare ? await bareWriter(copy.url) : serviceWriter(copy.url, user)
  const serverCpu = admin && backendCpu(admin, new URL(copy.url).pathname.slice(1))
  return { copy, writer, serverCpu, outcome: { put: [], post: [] } }
}

/** Runs `step` on a prepared configuration; a write that fails ends its measurement. */
async function attempt(prepared: Prepared, step: (writer: Writer, measured: Measured) => Promise<void>) {
  const { writer, outcome } = prepared
  if (!writer || 'failed' in outcome) return
  try {
    await step(writer, outcome)
  } catch (error) {
    prepared.outcome = { failed: `the write fails without it: ${(error as Error).message}` }
  }
}

/**
 * One round: every configuration on a fresh copy, all open at once, their batches taken in turn
 * (each batch cycle in a rotated order) so that the machine's drift falls on all of them alike
 * and each batch compares with the full schema's batch of the same cycle.
 */
async function round(
  template: Database,
  configurations: readonly Configuration[],
): Promise<Prepared['outcome'][]> {
  const prepared: Prepared[] = []
  try {
    for (const configuration of configurations) prepared.push(await prepare(template, configuration))
    for (const p of prepared) {
      await attempt(p, async (writer) => {
        for (let n = 0; n < warmup; n++) {
          await writer.put(plan.puts[n] as PlannedPut)
          await writer.post(plan.posts[n] as NewEvent)
        }
      })
    }
    for (let b = 0; b < batches; b++) {
      const first = warmup + b * writes
      const order = [...prepared.slice(b % prepared.length), ...prepared.slice(0, b % prepared.length)]
      for (const p of order) {
        await attempt(p, async (writer, measured) => {
          const puts = await timedBatch(
            writes,
            (n) => writer.put(plan.puts[first + n] as PlannedPut),
            p.serverCpu,
          )
          const posts = await timedBatch(
            writes,
            (n) => writer.post(plan.posts[first + n] as NewEvent),
            p.serverCpu,
          )
          ;(measured.put as BatchFigures[]).push(puts)
          ;(measured.post as BatchFigures[]).push(posts)
        })
      }
    }
    return prepared.map((p) => p.outcome)
  } finally {
    await Promise.allSettled(prepared.map((p) => p.writer?.close()))
    await Promise.allSettled(prepared.map((p) => dropped(p.copy)))
  }
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot }).toString().trim()
  } catch {
    return 'unknown'
  }
}

try {
  const started = new Date()
  const template = await made(factory.create())
  const filling = performance.now()
  await seedThroughImporter(template.url, events)
  const editor = openStore(template.url)
  await editor.putUser(user.name, 'editor', user.passwordHash).finally(() => editor.close())
  log(
    `${store}: ${events.toLocaleString('en')} events imported in ${((performance.now() - filling) / 1000).toFixed(1)} s`,
  )
  const { tables, parts } = await schemaParts(template.url)
  log(`tables an event write touches: ${tables.join(', ')}`)
  const configurations: Configuration[] = [
    { name: 'full schema' },
    ...parts.map((part) => ({ name: `minus ${part.kind} ${part.name}`, part })),
    { name: 'bare table', bare: true },
    // The same schema on a copy of its own: how far apart two identical configurations measure.
    { name: 'full schema, a second copy' },
  ]
  const results = configurations.map(() => [] as Outcome[])
  for (let r = 0; r < rounds; r++) {
    const outcomes = await round(template, configurations)
    for (const [i, outcome] of outcomes.entries()) results[i]?.push(outcome)
    const full = outcomes[0]
    const put = full && !('failed' in full) ? median(full.put.map((b) => b.wallUs)).toFixed(0) : '?'
    log(`round ${r + 1}/${rounds} done: the full schema's PUT ${put} µs/write`)
  }
  await dropped(template)
  const summary = summarise(configurations, results)
  const result = {
    bench: 'write-cost',
    store,
    date: started.toISOString(),
    commit: gitCommit(),
    events,
    writesPerBatch: writes,
    batches,
    warmup,
    keepTitles: values['keep-titles'],
    rounds,
    machine: { cpus: cpus().length, loadAverage: loadavg() },
    tables,
    parts,
    configurations: summary,
  }
  process.stdout.write(`\n${report(result)}`)
  const folder = resolve(repoRoot, values['results-dir'] as string)
  mkdirSync(folder, { recursive: true })
  const file = join(
    folder,
    `${result.date.replace(/:/g, '').replace(/\.\d+Z$/, 'Z')}-${result.commit}-write-cost-${store}${values['keep-titles'] ? '-keep-titles' : ''}.json`,
  )
  writeFileSync(file, `${JSON.stringify({ ...result, raw: results }, null, 2)}\n`)
  log(`results: ${file}`)
} finally {
  await dropAll()
  await admin?.end()
}

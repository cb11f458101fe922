// Live writes during an `ers import`: the latency and status of every create, PUT and delete sent
// by N clients while the CLI imports a generated file into the same database beside a running
// service. Prints p50/p99/max of the writes made during the import, their statuses, and the
// fewest answers in any 1-s window (0 means a second in which every write waited).
//
//   node --import tsx bench/import-beside-writes.ts --store sqlite --events 1000000
//   node --import tsx bench/import-beside-writes.ts --store postgres --events 1000000 \
//     --server-dir /path/to/other/checkout        (its dist/: to measure another version)
//
// PostgreSQL needs BENCH_PG_URL (an admin URL; a database of the bench's own is made and dropped).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { type Database, postgresDatabases, sqliteDatabases } from './databases.ts'
import { writeImportFile } from './dataset.ts'
import { freePort, repoRoot, runCommand, startServer } from './processes.ts'

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    events: { type: 'string', default: '1000000' },
    clients: { type: 'string', default: '8' },
    'server-dir': { type: 'string', default: repoRoot },
  },
})
const events = Number(values.events)
const clients = Number(values.clients)
const dir = values['server-dir'] as string
const factory =
  values.store === 'postgres'
    ? postgresDatabases(process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')
    : sqliteDatabases()

const work = mkdtempSync(join(tmpdir(), 'ers-import-bench-'))
const file = join(work, 'events.json')
await writeImportFile(file, events)
const database: Database = await factory.create()
const port = await freePort()
const env = {
  ...process.env,
  DATABASE_URL: database.url,
  PORT: String(port),
  HOST: '127.0.0.1',
  SEED: 'true',
  ADMIN_PASSWORD: 'admin-password-1',
  RATE_LIMIT_READS: '0',
  RATE_LIMIT_WRITES: '0',
  LOG_LEVEL: 'warn',
}
const server = await startServer(
  'service',
  [process.execPath, `${dir}/dist/main.js`],
  env,
  port,
  '/health/ready',
)
const auth = `Basic ${Buffer.from('admin:admin-password-1').toString('base64')}`
const headers = { authorization: auth, 'content-type': 'application/vnd.service.event+json' }

interface Answer {
  readonly at: number
  readonly ms: number
  readonly status: number
  readonly method: string
}
const answers: Answer[] = []
let importing = true

async function timed(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string } | undefined> {
  const sent = performance.now()
  try {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    if (importing) answers.push({ at: sent, ms: performance.now() - sent, status: res.status, method })
    return { status: res.status, text }
  } catch {
    if (importing) answers.push({ at: sent, ms: performance.now() - sent, status: 0, method })
    return undefined
  }
}

/** One client: create, replace it (moving its date), delete every other one. */
async function client(c: number) {
  for (let i = 0; importing; i++) {
    const date = Date.UTC(2028, 0, 1) + ((c * 7_919 + i * 104_729) % 5_000) * 3_600_000
    const created = await timed('POST', '/events', {
      title: `live ${c}-${i}`,
      date: new Date(date).toISOString(),
      location_id: 1,
    })
    if (created?.status !== 201) continue
    const { id } = JSON.parse(created.text) as { id: number }
    const path = `/events/${id}`
    await timed('PUT', path, {
      title: `live ${c}-${i} moved`,
      date: new Date(date + 30 * 86_400_000).toISOString(),
    })
    if (i % 2 === 0) await timed('DELETE', path)
  }
}

process.on('uncaughtException', (error) => {
  console.error(error)
  void server.stop().finally(() => process.exit(1))
})
const started = performance.now()
const importRun = runCommand([process.execPath, `${dir}/dist/cli/main.js`, 'import', file], {
  ...env,
  DATABASE_URL: database.url,
})
const loops = Array.from({ length: clients }, (_, c) => client(c))
let importError: unknown
const importOutput = await importRun.catch((error: unknown) => {
  importError = error
  return ''
})
const importMs = performance.now() - started
importing = false
await Promise.all(loops)
await server.stop()
await database.drop()
rmSync(work, { recursive: true, force: true })

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
const sorted = answers.map((a) => a.ms).sort((a, b) => a - b)
const byStatus = new Map<number, number>()
for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1)
const windows = new Array(Math.max(1, Math.floor(importMs / 1000))).fill(0) as number[]
for (const a of answers) {
  const w = Math.floor((a.at - started) / 1000)
  if (w < windows.length) windows[w] = (windows[w] as number) + 1
}
const result = {
  store: values.store,
  serverDir: dir,
  events,
  clients,
  import: importError ? `failed: ${String(importError).slice(0, 300)}` : importOutput.trim(),
  importSeconds: Number((importMs / 1000).toFixed(1)),
  writes: answers.length,
  p50Ms: Number(quantile(sorted, 0.5).toFixed(1)),
  p99Ms: Number(quantile(sorted, 0.99).toFixed(1)),
  maxMs: Number((sorted.at(-1) ?? NaN).toFixed(1)),
  statuses: Object.fromEntries(byStatus),
  fewestAnswersInASecond: Math.min(...windows),
  secondsWithoutAnswer: windows.filter((n) => n === 0).length,
  /** Which seconds of the import (from its start) had no answer, and the slowest writes: where it waits. */
  emptySeconds: windows.flatMap((n, s) => (n === 0 ? [s] : [])),
  slowest: [...answers]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5)
    .map((a) => `${a.method} sent at ${((a.at - started) / 1000).toFixed(1)} s: ${a.ms.toFixed(0)} ms`),
}
console.log(JSON.stringify(result))

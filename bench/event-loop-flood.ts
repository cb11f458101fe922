// How long the service's event loop is blocked while several connections send the costliest
// searches of GET /events (bench/flood.ts) to a SQLite file of many events. The server runs as
// production does (`node dist/main.js`; build first), the longest block is its own
// `nodejs_eventloop_lag_max_seconds` (prom-client's monitorEventLoopDelay, reset at each read of
// /metrics: read once before the flood, once after), and /health/live is asked throughout.
//
//   node --import tsx bench/event-loop-flood.ts --events 1000000 --database /tmp/flood-1m.db
//
// The database is made (bench/seed-store.ts) when the file does not exist, and kept: the next run
// reuses it. Options: --duration S (8), --connections N (4), --env NAME=VALUE (repeatable), --cheap
// (a flood of cheap reads instead: what the busy machine alone does to the loop).
//
// On PostgreSQL (the pool is what slow statements take there, not the loop), probing a read by id:
//
//   node --import tsx bench/event-loop-flood.ts --events 1000000 --connections 16 \
//     --postgres postgres://postgres@127.0.0.1:5432/ers_bench_flood --probe /events/5
//
// The database must exist; it is filled (bench/seed-store.ts seedPostgres) when it has no events
// table yet. --server-dir DIR runs another checkout's build (`DIR/dist/main.js`: a before/after).
import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { costlySearches, flood } from './flood.ts'
import { freePort, repoRoot, startServer } from './processes.ts'
import { seedPostgres, seedSqlite } from './seed-store.ts'

/** Whether the database at `url` is already migrated and filled. */
async function postgresHasEvents(url: string): Promise<boolean> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(`select to_regclass('events') is not null as found`)).rows[0].found
  } finally {
    await client.end()
  }
}

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    database: { type: 'string', default: '/tmp/ers-flood.db' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '4' },
    env: { type: 'string', multiple: true, default: [] },
    // The same flood of cheap reads (unfiltered pages, one event): the machine's own noise floor.
    cheap: { type: 'boolean', default: false },
    postgres: { type: 'string' },
    probe: { type: 'string', default: '/health/live' },
    'server-dir': { type: 'string', default: repoRoot },
  },
})
const events = Number(values.events)
const path = values.database

const databaseUrl = values.postgres ?? `sqlite:${path}`
if (values.postgres ? !(await postgresHasEvents(values.postgres)) : !existsSync(path)) {
  const started = Date.now()
  if (values.postgres) await seedPostgres(values.postgres, events)
  else await seedSqlite(path, events)
  console.log(
    `seeded ${events.toLocaleString('en')} events into ${databaseUrl.replace(/\/\/[^@/]*@/, '//…@')} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  )
}

const port = await freePort()
const searches = values.cheap
  ? ['/events?page=2', '/events/1', `/events?page=${Math.floor(events / 40)}`, '/locations']
  : costlySearches(events)
const extra = Object.fromEntries(values.env.map((pair) => pair.split(/=(.*)/s).slice(0, 2)))
const server = await startServer(
  'service',
  [process.execPath, `${values['server-dir']}/dist/main.js`],
  {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    SEED: 'false',
    ADMIN_PASSWORD: 'admin-password-1',
    RATE_LIMIT_READS: '0',
    LOG_LEVEL: 'warn',
    ...extra,
  },
  port,
  '/health/ready',
)
const lagMax = async () => {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text()
  return Number(/^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text)?.[1]) * 1000
}
try {
  // One search of each kind first, alone: what each costs, and (at a thread's first read) its start.
  for (const search of searches) {
    const sent = performance.now()
    const res = await fetch(`${server.baseUrl}${search}`)
    await res.arrayBuffer()
    console.log(`${search}: ${res.status} in ${(performance.now() - sent).toFixed(0)} ms`)
  }
  await lagMax()
  const result = await flood(server.baseUrl, {
    paths: searches,
    connections: Number(values.connections),
    durationMs: Number(values.duration) * 1000,
    probe: values.probe,
  })
  const max = await lagMax()
  const byStatus = new Map<number, number>()
  for (const answer of result.answers) byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1)
  const empty = result.healthWindows.filter((n) => n === 0).length
  console.log(
    `flood: ${values.connections} connections for ${values.duration} s: ${[...byStatus].map(([s, n]) => `${n}× ${s}`).join(', ')}`,
  )
  const sorted = [...result.probeMs].sort((a, b) => a - b)
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN
  console.log(
    `${values.probe}: ${result.healthAnswers} answers (${(result.healthAnswers / Number(values.duration)).toFixed(1)}/s), p99 ${p99.toFixed(1)} ms, longest ${result.healthMaxMs.toFixed(0)} ms, ${empty} of ${result.healthWindows.length} 100 ms windows without one, ${result.probeFailures.length} answers other than 200${result.probeFailures[0] ? ` (first: ${result.probeFailures[0]})` : ''}`,
  )
  console.log(`event loop: longest block ${max.toFixed(0)} ms (nodejs_eventloop_lag_max_seconds)`)
} finally {
  await server.stop()
}

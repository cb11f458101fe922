// Read throughput with one streaming replica against without, on this machine, from one run
// (issue 30): `node --import tsx bench/replicas.ts [--events N] [--duration S] [--connections C]`.
//
// A primary and a replica of the run's own (test/support/clusters.ts, PostgreSQL 15 on free ports,
// removed afterwards), one database filled through the importer, then the service as production
// runs it (`node dist/main.js`) twice in turn: DATABASE_URL alone, then with DATABASE_READ_URL
// naming the replica. Each serves GET by id, a page, and PUT (the write's cost of read-your-
// writes: a position asked after each commit) under wrk or autocannon (bench/load-driver.ts).
// Prints one line per scenario with both rates and their ratio, and where the reads went.
import { parseArgs } from 'node:util'
import pg from 'pg'
import { startReplicatedPair } from '../test/support/clusters.ts'
import { ensureBuild } from './build.ts'
import { fillDatabase } from './dataset.ts'
import { productionNodeFlags } from './node-flags.ts'
import { freePort, type RunningServer, startLoadDriver, startServer } from './processes.ts'
import type { RequestPlan, ScenarioName } from './scenarios.ts'

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
  },
})
const events = Number(values.events)
const duration = Number(values.duration)
const warmup = Number(values.warmup)
const connections = Number(values.connections)
const log = (line: string) => process.stdout.write(`${line}\n`)

async function sql(url: string, text: string) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows
  } finally {
    await client.end()
  }
}

const scenarioNames: ScenarioName[] = ['get-event', 'get-page', 'put-event']

ensureBuild()
const clusters = await startReplicatedPair({ synchronous: false })
// Interrupted (Ctrl-C, a timeout's SIGTERM), the clusters go too, as at the end of a run.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void clusters.stop().finally(() => process.exit(130))
  })
}
const driver = startLoadDriver((argv) => [...argv])
try {
  const database = 'ers_bench_replicas'
  await sql(clusters.primary.url(), `create database ${database}`)
  const replica = clusters.standby
  const primaryUrl = clusters.primary.url(database)
  const { dataset, credentials } = await fillDatabase(primaryUrl, events, undefined, log)
  const authorization = `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`

  const serve = async (name: string, readUrl: string | undefined): Promise<RunningServer> => {
    const port = await freePort()
    return startServer(
      name,
      [process.execPath, ...productionNodeFlags, 'dist/main.js'],
      {
        ...process.env,
        DATABASE_URL: primaryUrl,
        ...(readUrl && { DATABASE_READ_URL: readUrl }),
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'info',
        SEED: 'false',
        KEY_ENCRYPTION_KEY: credentials.keyEncryptionKey,
        AUTH_FAILURES_PER_MINUTE: '1000000',
        RATE_LIMIT_READS: '10000000',
        RATE_LIMIT_WRITES: '10000000',
        MAX_CONNECTIONS_PER_ADDRESS: '1000000',
        NODE_ENV: 'production',
      },
      port,
      '/health/ready',
    )
  }

  const rates = new Map<string, { without?: number; with?: number }>()
  const commitsPerWrite = new Map<string, number>()
  // One connection for every look: a new one would count commits of its own as it starts.
  const counter = new pg.Client({ connectionString: primaryUrl })
  await counter.connect()
  const commits = async () => {
    await counter.query('select pg_stat_clear_snapshot()')
    const { rows } = await counter.query(
      'select xact_commit from pg_stat_database where datname = current_database()',
    )
    return Number(rows[0]?.xact_commit)
  }
  for (const [side, readUrl] of [
    ['without', undefined],
    ['with', replica.url(database)],
  ] as const) {
    const server = await serve(`service ${side} a replica`, readUrl)
    const writes = { before: 0, requests: 0 }
    try {
      if (readUrl) {
        // Its first check must have found the replica fresh before the load starts.
        for (;;) {
          const ready = (await (await fetch(`${server.baseUrl}/health/ready`)).json()) as {
            replicas?: { state: string }[]
          }
          if (ready.replicas?.[0]?.state === 'up') break
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
      for (const scenario of scenarioNames) {
        const plan: RequestPlan = {
          scenario,
          baseUrl: server.baseUrl,
          events: dataset.events,
          locations: dataset.locations,
          perPage: 20,
          authorization,
        }
        if (scenario === 'put-event') writes.before = await commits()
        const warm = await driver.run({ plan, connections, generator: 'auto', length: { seconds: warmup } })
        const figures = await driver.run({
          plan,
          connections,
          generator: 'auto',
          length: { seconds: duration },
        })
        if (scenario === 'put-event') writes.requests = warm.requests + figures.requests
        const entry = rates.get(scenario) ?? {}
        entry[side] = figures.rps
        rates.set(scenario, entry)
        log(
          `${scenario.padEnd(10)} ${side.padEnd(7)} a replica: ${Math.round(figures.rps)} req/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, non-2xx ${figures.non2xx}`,
        )
      }
      if (readUrl) {
        const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text()
        for (const line of metrics.split('\n')) if (line.startsWith('db_reads_total')) log(`  ${line}`)
      }
    } finally {
      await server.stop()
    }
    // The server's backends have exited and reported their counts: the commits on the primary
    // per PUT (each PUT is one statement; the rest is what read-your-writes asks after commits,
    // and the lag checks' 10 samples a second).
    if (writes.requests > 0) {
      let after = await commits()
      // Each look is two commits of its own: settled when nothing else was counted between two.
      for (let previous = -10; after - previous > 2; ) {
        await new Promise((resolve) => setTimeout(resolve, 500))
        previous = after
        after = await commits()
      }
      const perWrite = (after - writes.before) / writes.requests
      commitsPerWrite.set(side, perWrite)
      log(`put-event  ${side.padEnd(7)} a replica: ${perWrite.toFixed(3)} commits on the primary per PUT`)
    }
  }
  log('')
  log(`${events} events, ${connections} connections, ${duration} s per run, one run each:`)
  for (const [scenario, { without = 0, with: withReplica = 0 }] of rates) {
    log(
      `${scenario.padEnd(10)} without ${Math.round(without)} req/s, with ${Math.round(withReplica)} req/s: ratio ${(withReplica / without).toFixed(2)}`,
    )
  }
  await counter.end()
  log(
    `commits on the primary per PUT: without ${commitsPerWrite.get('without')?.toFixed(3)}, with ${commitsPerWrite.get('with')?.toFixed(3)}`,
  )
} finally {
  await driver.stop()
  await clusters.stop()
}

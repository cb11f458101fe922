// Instructions per request of the service and of the baseline, counted by Valgrind's cachegrind:
// a figure that does not move with the machine's other load, where CPU time per request moved
// by a third from run to run on a shared machine (docs/performance.md, "Where the rest of a
// single read goes"). It counts user-space instructions only (no system calls) and says nothing
// of how fast they run: a path that touches more code and data runs each instruction slower. So
// it complements `npm run bench`, it does not replace it.
//
// Each server is started twice under cachegrind on the same data (SQLite): both runs get the same
// warm-up, then one `--requests` more. The difference of their counts, divided by `--requests`,
// is what a request costs, start-up and warm-up left out. The two runs of a side go side by side.
//
//   npm run bench:instructions -- [--scenarios revalidate-event,browser-get-event]
//        [--requests 8000] [--warmup 4000] [--events 10000]
//
// Needs valgrind (apt-get install valgrind). Slow: each run is ~50 times slower than natively.
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ensureBuild } from './build.ts'
import { type Database, sqliteDatabases } from './databases.ts'
import { fillDatabase } from './dataset.ts'
import { productionNodeFlags } from './node-flags.ts'
import { freePort, startServer } from './processes.ts'
import { drawRequest, type RequestPlan, type ScenarioName } from './scenarios.ts'

const { values } = parseArgs({
  options: {
    scenarios: { type: 'string', default: 'get-event,browser-get-event,revalidate-event' },
    requests: { type: 'string', default: '8000' },
    warmup: { type: 'string', default: '4000' },
    events: { type: 'string', default: '10000' },
  },
})
const requests = Number(values.requests)
const warmup = Number(values.warmup)
const events = Number(values.events)
const chosen = values.scenarios.split(',') as ScenarioName[]
// Reads only: a write changes what the next run of the same side finds.
const readable: ScenarioName[] = [
  'get-event',
  'browser-get-event',
  'revalidate-event',
  'get-page',
  'deep-page',
]
for (const name of chosen) {
  if (!readable.includes(name)) throw new Error(`--scenarios: one of ${readable.join(', ')}, not ${name}`)
}
if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('valgrind is not installed (apt-get install valgrind)')
  process.exit(2)
}

const log = (line: string) => console.error(`instructions: ${line}`)

ensureBuild()
const factory = sqliteDatabases()
const database = await factory.create()
try {
  const { dataset, credentials } = await fillDatabase(database.url, events, undefined, log)
  const baselineData = await factory.copy(database)
  const rows: string[] = []
  for (const scenario of chosen) {
    const counted = async (side: 'service' | 'baseline', data: Database) => {
      const [short, long] = await Promise.all([
        countRun(side, data, scenario, 0, credentials.keyEncryptionKey, dataset.locations),
        countRun(side, data, scenario, requests, credentials.keyEncryptionKey, dataset.locations),
      ])
      return (long - short) / requests
    }
    const service = await counted('service', database)
    const baseline = await counted('baseline', baselineData)
    log(`${scenario}: service ${Math.round(service)}, baseline ${Math.round(baseline)}`)
    rows.push(
      `| ${scenario} | ${Math.round(service).toLocaleString('en')} | ${Math.round(baseline).toLocaleString('en')} | ${(baseline / service).toFixed(2)} |`,
    )
  }
  await baselineData.drop()
  console.log(`# Instructions per request (cachegrind), SQLite, ${events.toLocaleString('en')} events\n`)
  console.log(`- ${warmup} requests to warm up, then ${requests} counted; user space only\n`)
  console.log('| scenario | service | baseline | baseline ÷ service |')
  console.log('| --- | ---: | ---: | ---: |')
  for (const row of rows) console.log(row)
} finally {
  await database.drop()
}

/** Total instructions of one server run: start, warm-up, `extra` requests, stop. */
async function countRun(
  side: 'service' | 'baseline',
  data: Database,
  scenario: ScenarioName,
  extra: number,
  keyEncryptionKey: string,
  locations: number,
): Promise<number> {
  const port = await freePort()
  const out = join(tmpdir(), `ers-cachegrind-${side}-${port}.out`)
  const valgrind = ['valgrind', '--tool=cachegrind', '--cache-sim=no', `--cachegrind-out-file=${out}`]
  const program =
    side === 'service'
      ? [process.execPath, ...productionNodeFlags, 'dist/main.js']
      : [process.execPath, ...productionNodeFlags, '--import', 'tsx', 'bench/baseline/server.ts']
  // As `npm run bench` starts them (bench/run.ts), limits out of reach but counted.
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    SEED: 'false',
    DATABASE_URL: data.url,
    BASELINE_DATABASE_URL: data.url,
    KEY_ENCRYPTION_KEY: keyEncryptionKey,
    AUTH_FAILURES_PER_MINUTE: '1000000',
    RATE_LIMIT_READS: '10000000',
    RATE_LIMIT_WRITES: '10000000',
    MAX_CONNECTIONS_PER_ADDRESS: '1000000',
  }
  const server = await startServer(
    `${side} under cachegrind`,
    [...valgrind, ...program],
    env,
    port,
    '/health/ready',
  )
  try {
    const plan: RequestPlan = { scenario, baseUrl: server.baseUrl, events, locations, perPage: 20 }
    await send(plan, port, warmup)
    await send(plan, port, extra)
  } finally {
    await server.stop()
  }
  const summary = /^summary: (\d+)/m.exec(readFileSync(out, 'utf8'))?.[1]
  rmSync(out, { force: true })
  if (summary === undefined) throw new Error(`no summary in ${out}`)
  return Number(summary)
}

/** `count` requests of the scenario over 10 keep-alive connections; any status but 2xx/304 fails. */
async function send(plan: RequestPlan, port: number, count: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 })
  let sent = 0
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const drawn = drawRequest(plan)
      const request = http.request(
        { host: '127.0.0.1', port, method: drawn.method, path: drawn.path, headers: drawn.headers, agent },
        (response) => {
          response.resume()
          response.on('end', () => {
            const status = response.statusCode ?? 0
            if ((status >= 200 && status < 300) || status === 304) resolve()
            else reject(new Error(`${drawn.method} ${drawn.path}: ${status}`))
          })
        },
      )
      request.on('error', reject)
      request.end(drawn.body)
    })
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (sent < count) {
        sent++
        await one()
      }
    }),
  )
  agent.destroy()
}

// `npm run bench`: the service (node dist/main.js) beside the baseline (bench/baseline/), both on
// copies of one database filled by the importer, driven by autocannon from a process of its own.
// Prints a table and writes JSON, Markdown and an SVG chart to bench/results/. See bench/README.md.
import { execFileSync } from 'node:child_process'
import { cpus } from 'node:os'
import { ensureBuild } from './build.ts'
import { type DatabaseFactory, postgresDatabases, sqliteDatabases } from './databases.ts'
import { type Credentials, fillDatabase } from './dataset.ts'
import type { LoadRun } from './load-driver.ts'
import { findNginx, nginxAddress, startNginx } from './nginx.ts'
import { baselineNodeFlags, serviceNodeFlags } from './node-flags.ts'
import { type Options, parseOptions, usage, type Warmup } from './options.ts'
import { choosePinning, type Pinning } from './pinning.ts'
import {
  freePort,
  type LoadDriver,
  processCpuMicros,
  type RunningServer,
  repoRoot,
  startLoadDriver,
  startServer,
} from './processes.ts'
import { compareResults } from './report/compare.ts'
import { markdown } from './report/markdown.ts'
import type { BenchResult, GrowthResult, Measured, ScenarioResult } from './result.ts'
import { writeResults } from './results-files.ts'
import { type RequestPlan, type ScenarioName, scenarios } from './scenarios.ts'
import { type Verification, verifySameBytes } from './verify.ts'

const started = Date.now()
const log = (line: string) =>
  process.stderr.write(`bench [${((Date.now() - started) / 1000).toFixed(1)} s]: ${line}\n`)

/** Everything started for one database size, and how to take it down. */
interface Pair {
  readonly events: number
  readonly locations: number
  readonly service: RunningServer
  readonly baseline: RunningServer
  readonly credentials: Credentials
  readonly verification: Verification
  /** Each server's URL through nginx, when a scenario goes through it. */
  readonly proxied?: { readonly service: string; readonly baseline: string }
  /**
   * Waits until the databases of both servers are idle (DatabaseFactory.settle), then moves the
   * database server's processes that serve them to the load's core (pinning.ts).
   */
  settle(): Promise<void>
  /**
   * CPU time (µs) of each process of a local database server serving the service's database or
   * the baseline's, by pid; empty where those processes are not on this machine.
   */
  storeCpu(side: 'service' | 'baseline'): Promise<ReadonlyMap<number, number>>
}

const cleanups: (() => Promise<void>)[] = []
/** How long a run's leftover statements may go on before they are cancelled (Pair.settle). */
const settleWaitMs = 30_000
async function cleanUp() {
  for (const step of cleanups.splice(0).reverse())
    await step().catch((e: Error) => log(`cleanup: ${e.message}`))
}

async function startPair(
  options: Options,
  factory: DatabaseFactory,
  pinning: Pinning,
  events: number,
): Promise<Pair> {
  const database = await factory.create()
  cleanups.push(() => database.drop())
  const { dataset, credentials } = await fillDatabase(database.url, events, undefined, log)
  const copy = await factory.copy(database)
  cleanups.push(() => copy.drop())
  const servicePort = await freePort()
  const baselinePort = await freePort()
  const nginx = options.scenarios.some((s) => scenarios[s].viaNginx) ? findNginx() : undefined
  if (options.scenarios.some((s) => scenarios[s].viaNginx) && !nginx)
    log('nginx is not installed: the proxied scenarios are skipped')
  // Both at once; whichever started is stopped at the end even when the other failed.
  const servers = await Promise.allSettled([
    startServer(
      'service',
      pinning.server([process.execPath, ...serviceNodeFlags, 'dist/main.js']),
      {
        ...process.env,
        DATABASE_URL: database.url,
        HOST: '127.0.0.1',
        PORT: String(servicePort),
        LOG_LEVEL: options.logLevel,
        SEED: 'false',
        KEY_ENCRYPTION_KEY: credentials.keyEncryptionKey,
        // Every request of a run carries the right credentials; a limit on failures must not interfere.
        AUTH_FAILURES_PER_MINUTE: '1000000',
        // The limits are per client address and principal, and all the load comes from one of each:
        // set above any rate reachable here, so the limiter still counts every request (its cost is
        // measured) but never refuses one (its refusals are not the service's work). See README.
        ...serviceLimits,
        // Behind nginx as deployed (README): the client's address comes from X-Forwarded-For when
        // the peer is nginx. Set for every scenario of a run that has proxied ones.
        ...(nginx && { TRUST_PROXY: nginxAddress }),
        NODE_ENV: 'production',
      },
      servicePort,
      '/health/ready',
    ),
    startServer(
      'baseline',
      pinning.server([process.execPath, ...baselineNodeFlags, '--import', 'tsx', 'bench/baseline/server.ts']),
      {
        ...process.env,
        BASELINE_DATABASE_URL: copy.url,
        BASELINE_TRUST_PROXY: nginx ? 'true' : 'false',
        HOST: '127.0.0.1',
        PORT: String(baselinePort),
      },
      baselinePort,
      '/health/ready',
    ),
  ])
  for (const outcome of servers) if (outcome.status === 'fulfilled') cleanups.push(() => outcome.value.stop())
  const [service, baseline] = servers.map((outcome) => {
    if (outcome.status === 'rejected') throw outcome.reason
    return outcome.value
  }) as [RunningServer, RunningServer]
  const verification = await verifySameBytes(
    { baseUrl: service.baseUrl, authorization: basic(credentials) },
    { baseUrl: baseline.baseUrl },
    events,
  )
  if (!verification.identical)
    log(`WARNING: the baseline answers differently:\n  ${verification.differences.join('\n  ')}`)
  let proxied: Pair['proxied']
  if (nginx) {
    const proxy = await startNginx(nginx, [service.baseUrl, baseline.baseUrl], pinning.load)
    cleanups.push(() => proxy.stop())
    proxied = { service: proxy.urls[0] as string, baseline: proxy.urls[1] as string }
  }
  // The verification's POST added one event on each side: ids 1..events still all exist.
  const settle = async () => {
    const cancelled = (await factory.settle?.([database, copy], settleWaitMs)) ?? 0
    if (cancelled > 0)
      log(`cancelled ${cancelled} statements still running ${settleWaitMs / 1000} s after a run`)
    // After a warm-up the pools hold all their connections: the measured run opens no new ones.
    pinning.moveToLoadCore((await factory.backends?.([database, copy])) ?? [])
  }
  const storeCpu = async (side: 'service' | 'baseline') => {
    const pids = (await factory.backends?.([side === 'service' ? database : copy])) ?? []
    const cpu = new Map<number, number>()
    for (const pid of pids) {
      const micros = processCpuMicros(pid)
      if (micros !== undefined) cpu.set(pid, micros)
    }
    return cpu
  }
  return {
    events,
    locations: dataset.locations,
    service,
    baseline,
    credentials,
    verification,
    settle,
    storeCpu,
    ...(proxied && { proxied }),
  }
}

/** Rate and connection limits of the service during a run (in memory: no REDIS_URL is passed). */
const serviceLimits = {
  RATE_LIMIT_READS: '10000000',
  RATE_LIMIT_WRITES: '10000000',
  MAX_CONNECTIONS_PER_ADDRESS: '1000000',
}

const basic = (c: Credentials) => `Basic ${Buffer.from(`${c.user}:${c.password}`).toString('base64')}`

async function measure(
  driver: LoadDriver,
  server: RunningServer,
  options: Options,
  plan: RequestPlan,
  pair: Pair,
  side: 'service' | 'baseline',
  first: boolean,
): Promise<Measured> {
  const settle = pair.settle
  const base: Omit<LoadRun, 'length'> = {
    plan,
    connections: scenarios[plan.scenario].connections ?? options.connections,
    generator: options.load,
  }
  // The warm-up and the measured run each start with the databases idle: nothing left over from
  // the run before weighs on this one.
  await settle()
  await warmUp(driver, base, options.warmup, first)
  await settle()
  const reset = server.resetPeak()
  if (!reset) peakSinceStart = true
  const length =
    options.duration !== undefined ? { seconds: options.duration } : { requests: options.requests ?? 300 }
  const storeBefore = await pair.storeCpu(side)
  const cpuBefore = server.cpuMicros()
  const figures = await driver.run({ ...base, length })
  const cpuAfter = server.cpuMicros()
  const storeAfter = await pair.storeCpu(side)
  const cpuMicrosPerRequest =
    cpuBefore !== undefined && cpuAfter !== undefined && figures.requests > 0
      ? (cpuAfter - cpuBefore) / figures.requests
      : undefined
  // A process that ended during the run takes its time with it; one that began counts whole.
  const storeMicros = [...storeAfter].reduce((sum, [pid, cpu]) => sum + cpu - (storeBefore.get(pid) ?? 0), 0)
  const storeCpuMicrosPerRequest =
    storeAfter.size > 0 && figures.requests > 0 ? storeMicros / figures.requests : undefined
  return { ...figures, peakRssBytes: server.peakRss(), cpuMicrosPerRequest, storeCpuMicrosPerRequest }
}

/**
 * The warm-up (options.ts Warmup). Writes run at hundreds a second where reads run at thousands,
 * so two seconds warm a read's path but not a write's: at 2,000 writes V8 was still compiling
 * Kysely's builder and the authentication (--trace-opt), and the first round of a Basic PUT on
 * SQLite cost the service twice the CPU per request of the next.
 */
async function warmUp(driver: LoadDriver, base: Omit<LoadRun, 'length'>, warmup: Warmup, first: boolean) {
  if ('requests' in warmup) return void (await driver.run({ ...base, length: warmup }))
  const warm = await driver.run({ ...base, length: { seconds: warmup.seconds } })
  const missing = first ? warmup.firstRequests - warm.requests : 0
  if (missing <= 0 || warm.rps <= 0) return
  const seconds = Math.min(missing / warm.rps, warmup.firstMaxSeconds - warmup.seconds)
  if (seconds > 0) await driver.run({ ...base, length: { seconds: Math.ceil(seconds) } })
}

let peakSinceStart = false

async function runScenario(
  driver: LoadDriver,
  pair: Pair,
  options: Options,
  scenario: ScenarioName,
): Promise<ScenarioResult> {
  const viaNginx = scenarios[scenario].viaNginx === true
  const plan = (server: RunningServer, forService: boolean): RequestPlan => ({
    scenario,
    baseUrl: !viaNginx
      ? server.baseUrl
      : ((forService ? pair.proxied?.service : pair.proxied?.baseline) ?? server.baseUrl),
    events: pair.events,
    locations: pair.locations,
    perPage: 20,
    ...(forService && scenarios[scenario].auth === 'basic' && { authorization: basic(pair.credentials) }),
    ...(forService && scenarios[scenario].auth === 'signature' && { signingKey: pair.credentials.key }),
  })
  const at = `${scenario} at ${pair.events.toLocaleString('en')} events`
  const service: Measured[] = []
  const baseline: Measured[] = []
  // Service and baseline in turn, so that a slower spell of the machine weighs on both.
  for (let round = 1; round <= options.rounds; round++) {
    const of = options.rounds > 1 ? ` (round ${round} of ${options.rounds})` : ''
    log(`${at}: service${of}…`)
    const first = round === 1
    service.push(
      await measure(driver, pair.service, options, plan(pair.service, true), pair, 'service', first),
    )
    log(`${at}: baseline${of}…`)
    baseline.push(
      await measure(driver, pair.baseline, options, plan(pair.baseline, false), pair, 'baseline', first),
    )
  }
  const ratios = service.map((s, i) => {
    const b = baseline[i]?.rps ?? 0
    return b > 0 ? s.rps / b : 0
  })
  const cpuRatios = service.flatMap((s, i) => {
    const b = baseline[i]?.cpuMicrosPerRequest
    return s.cpuMicrosPerRequest && b ? [b / s.cpuMicrosPerRequest] : []
  })
  const [s, b] = [typical(service), typical(baseline)]
  return {
    scenario,
    what: scenarios[scenario].what,
    events: pair.events,
    service: s,
    baseline: b,
    ratio: median(ratios),
    ...(cpuRatios.length > 0 && { cpuRatio: median(cpuRatios) }),
    ...(options.rounds > 1 && {
      rounds: {
        service: service.map((m) => m.rps),
        baseline: baseline.map((m) => m.rps),
        serviceCpu: service.map((m) => m.cpuMicrosPerRequest),
        baselineCpu: baseline.map((m) => m.cpuMicrosPerRequest),
      },
    }),
    errors: s.non2xx + s.socketErrors + b.non2xx + b.socketErrors,
  }
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((x, y) => x - y)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

/**
 * The run whose requests/s is the median (the lower middle one for an even count), with its own
 * latencies; errors, status counts and the peak RSS of every round, so that none is hidden.
 */
function typical(runs: readonly Measured[]): Measured {
  const sorted = [...runs].sort((x, y) => x.rps - y.rps)
  const middle = sorted[Math.floor((sorted.length - 1) / 2)] as Measured
  const statusCodes: Record<string, number> = {}
  for (const run of runs) {
    for (const [code, count] of Object.entries(run.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count
  }
  const peaks = runs.flatMap((run) => (run.peakRssBytes === undefined ? [] : [run.peakRssBytes]))
  const cpu = runs.flatMap((run) => (run.cpuMicrosPerRequest === undefined ? [] : [run.cpuMicrosPerRequest]))
  const store = runs.flatMap((run) =>
    run.storeCpuMicrosPerRequest === undefined ? [] : [run.storeCpuMicrosPerRequest],
  )
  return {
    ...middle,
    cpuMicrosPerRequest: cpu.length > 0 ? median(cpu) : undefined,
    storeCpuMicrosPerRequest: store.length > 0 ? median(store) : undefined,
    non2xx: runs.reduce((n, run) => n + run.non2xx, 0),
    socketErrors: runs.reduce((n, run) => n + run.socketErrors, 0),
    timeouts: runs.reduce((n, run) => n + run.timeouts, 0),
    statusCodes,
    peakRssBytes: peaks.length > 0 ? Math.max(...peaks) : undefined,
  }
}

function gitCommit(): { commit: string; dirty: boolean } {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot }).toString().trim()
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: repoRoot }).toString().trim() !== ''
    return { commit, dirty }
  } catch {
    return { commit: 'unknown', dirty: false }
  }
}

// Reads first, while the data set is as imported; then the writes, POST last since it grows the table.
const order: ScenarioName[] = [
  'get-event',
  'browser-get-event',
  'revalidate-event',
  'proxied-get-event',
  'get-page',
  'proxied-get-page',
  'deep-page',
  'filter-dates',
  'filter-location',
  'filter-q',
  'put-event',
  'signed-put-event',
  'mix-90-10',
  'post-event',
]
const growthScenarios: ScenarioName[] = ['growth-get-event', 'growth-get-page-1']

async function bench(options: Options): Promise<BenchResult> {
  ensureBuild()
  const pinning = choosePinning(options.pin)
  log(pinning.description)
  const factory = options.store === 'sqlite' ? sqliteDatabases() : postgresDatabases(options.databaseUrl)
  const driver = startLoadDriver(pinning.load)
  cleanups.push(() => driver.stop())
  const results: ScenarioResult[] = []
  const growth: GrowthResult[] = []

  const pair = await startPair(options, factory, pinning, options.events)
  const wanted = order.filter((s) => options.scenarios.includes(s))
  const reads = (s: ScenarioName) => scenarios[s].auth === 'none'
  for (const scenario of wanted.filter(reads)) {
    if (scenarios[scenario].viaNginx && !pair.proxied) continue
    results.push(await runScenario(driver, pair, options, scenario))
  }
  const atSize = options.growth ? await runAll(driver, pair, options, growthScenarios) : []
  results.push(...atSize)
  for (const scenario of wanted.filter((s) => !reads(s))) {
    results.push(await runScenario(driver, pair, options, scenario))
  }
  let verification = pair.verification
  if (options.growth) {
    await pair.service.stop()
    await pair.baseline.stop()
    const small = await startPair(options, factory, pinning, options.growthBase)
    if (!small.verification.identical) verification = small.verification
    const atBase = await runAll(driver, small, options, growthScenarios)
    results.push(...atBase)
    for (const large of atSize) {
      const base = atBase.find((r) => r.scenario === large.scenario)
      if (!base) continue
      growth.push({
        scenario: large.scenario,
        baseEvents: base.events,
        events: large.events,
        serviceGrowth: base.service.rps > 0 ? large.service.rps / base.service.rps : 0,
        baselineGrowth: base.baseline.rps > 0 ? large.baseline.rps / base.baseline.rps : 0,
      })
    }
  }
  const { commit, dirty } = gitCommit()
  return {
    format: 1,
    date: new Date().toISOString(),
    commit,
    dirty,
    store: options.store,
    events: options.events,
    smoke: options.smoke,
    run: {
      ...(options.duration !== undefined ? { seconds: options.duration } : { requests: options.requests }),
      connections: options.connections,
      rounds: options.rounds,
      load: options.load,
      warmup: options.warmup,
    },
    pinning: pinning.description,
    peakRss: peakSinceStart
      ? 'VmHWM since the server started (this kernel would not reset it per run)'
      : 'VmHWM during each measured run (reset through /proc/<pid>/clear_refs before it)',
    logLevel: options.logLevel,
    nodeFlags: { service: serviceNodeFlags, baseline: baselineNodeFlags },
    limits: `${Object.entries(serviceLimits)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')} (counted, never reached; counters in memory)`,
    machine: { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model.trim() ?? 'unknown' },
    verification,
    scenarios: results,
    growth,
  }
}

async function runAll(driver: LoadDriver, pair: Pair, options: Options, names: ScenarioName[]) {
  const out: ScenarioResult[] = []
  for (const scenario of names) out.push(await runScenario(driver, pair, options, scenario))
  return out
}

let interrupted = false

async function main() {
  let options: Options
  try {
    options = parseOptions(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n${usage}`)
    process.exitCode = 2
    return
  }
  if (options.compare) {
    process.stdout.write(compareResults(...options.compare))
    return
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true
      log(`${signal}: stopping the servers and dropping the databases`)
      void cleanUp().then(() => process.exit(130))
    })
  }
  try {
    const result = await bench(options)
    const files = writeResults(result, options.resultsDir)
    process.stdout.write(`${markdown(result)}\n`)
    log(`results: ${files.join(', ')}`)
  } catch (error) {
    // After a signal, the driver and servers going away is expected, not a failure to report.
    if (!interrupted) process.stderr.write(`bench: failed: ${(error as Error).stack ?? error}\n`)
    process.exitCode = 1
  } finally {
    await cleanUp()
  }
}

await main()

// The command line of `npm run bench`.
import { parseArgs } from 'node:util'
import type { StoreName } from './databases.ts'
import type { LoadGenerator } from './load-driver.ts'
import type { ScenarioName } from './scenarios.ts'

export interface Options {
  readonly store: StoreName
  /** PostgreSQL: the server on which the harness makes (and drops) its databases. */
  readonly databaseUrl: string
  readonly events: number
  /** Seconds per measured run, or undefined when runs are counted in requests (smoke). */
  readonly duration: number | undefined
  /** Measured runs per scenario and server, alternating service and baseline; medians reported. */
  readonly rounds: number
  readonly requests: number | undefined
  readonly warmup: Warmup
  readonly connections: number
  /** What makes the load: wrk where installed (auto), or the one named. */
  readonly load: LoadGenerator | 'auto'
  readonly growth: boolean
  readonly growthBase: number
  readonly scenarios: readonly ScenarioName[]
  readonly smoke: boolean
  readonly pin: boolean
  readonly logLevel: string
  readonly resultsDir: string
  readonly compare: readonly [string, string] | undefined
}

/**
 * Before each measured run: `seconds` of load, or `requests` (smoke). Before a scenario's first
 * measured run on each server, the warm-up goes on until `firstRequests` have been answered, for
 * at most `firstMaxSeconds` in all: a path is measured once V8 has compiled it, as it runs in a
 * service that has been up for a while, not while it is still being compiled.
 */
export type Warmup =
  | { readonly seconds: number; readonly firstRequests: number; readonly firstMaxSeconds: number }
  | { readonly requests: number }

export const usage = `Usage: npm run bench -- [options]
  --store sqlite|postgres   the store (default sqlite)
  --database-url URL        PostgreSQL server to make a database on
                            (default postgres://postgres@127.0.0.1:5432/postgres)
  --events N                events in the database (default 10000)
  --duration S              seconds per measured run (default 10)
  --warmup S                seconds of warm-up before each run (default 2)
  --warmup-requests N       before a scenario's first run on each server, warm up until N
                            requests are answered, at most 30 s (default 10000; 0: seconds only)
  --rounds N                measure each scenario N times, service and baseline in turn, and
                            report the medians (default 1; 3 or 5 on a noisy machine)
  --connections N           concurrent connections (default 10)
  --load auto|wrk|autocannon  the load generator (default auto: wrk where installed, autocannon
                            otherwise and for signed requests)
  --scenarios a,b           only these (get-event, browser-get-event, revalidate-event,
                            proxied-get-event, get-page, proxied-get-page, deep-page,
                            filter-dates, filter-location, filter-q, put-event,
                            signed-put-event, post-event, mix-90-10); the proxied-* go
                            through nginx, with TRUST_PROXY=127.0.0.1 for the whole run
  --growth                  also GET by id and page 1 at --growth-base events (default 10000)
                            beside the same at --events
  --smoke                   a few hundred requests per run on a small database (for npm test)
  --no-pin                  do not pin server and load generator to cores
  --log-level L             the service's LOG_LEVEL (default info, as in production)
  --results-dir DIR         where result files go (default bench/results)
  --compare A.json B.json   print the difference between two result files
`

const mainScenarios: ScenarioName[] = [
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

export function parseOptions(argv: string[]): Options {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      store: { type: 'string', default: 'sqlite' },
      'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
      events: { type: 'string' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      'warmup-requests': { type: 'string', default: '10000' },
      rounds: { type: 'string', default: '1' },
      connections: { type: 'string', default: '10' },
      load: { type: 'string', default: 'auto' },
      scenarios: { type: 'string' },
      growth: { type: 'boolean', default: false },
      'growth-base': { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'no-pin': { type: 'boolean', default: false },
      'log-level': { type: 'string', default: 'info' },
      'results-dir': { type: 'string', default: 'bench/results' },
      compare: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) {
    process.stdout.write(usage)
    process.exit(0)
  }
  const number = (name: string, text: string | undefined, fallback: number) => {
    const value = text === undefined ? fallback : Number(text)
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`)
    return value
  }
  const wholeNumber = (name: string, text: string) => {
    const value = Number(text)
    if (!Number.isSafeInteger(value) || value < 0)
      throw new Error(`--${name} must be a whole number, 0 or more`)
    return value
  }
  if (values.store !== 'sqlite' && values.store !== 'postgres')
    throw new Error('--store must be sqlite or postgres')
  const smoke = values.smoke
  const scenarios = (values.scenarios?.split(',') ?? mainScenarios) as ScenarioName[]
  for (const name of scenarios) {
    if (!mainScenarios.includes(name))
      throw new Error(`unknown scenario ${name} (one of ${mainScenarios.join(', ')})`)
  }
  const load = values.load
  if (load !== 'auto' && load !== 'wrk' && load !== 'autocannon')
    throw new Error('--load must be auto, wrk or autocannon')
  if (values.compare && positionals.length !== 2) throw new Error('--compare takes two result files')
  return {
    store: values.store,
    databaseUrl: values['database-url'],
    events: Math.floor(number('events', values.events, smoke ? 1_000 : 10_000)),
    duration: smoke ? undefined : number('duration', values.duration, 10),
    rounds: Math.floor(number('rounds', values.rounds, 1)),
    requests: smoke ? 200 : undefined,
    warmup: smoke
      ? { requests: 30 }
      : {
          seconds: number('warmup', values.warmup, 2),
          firstRequests: wholeNumber('warmup-requests', values['warmup-requests']),
          firstMaxSeconds: 30,
        },
    connections: Math.floor(number('connections', values.connections, 10)),
    load,
    // The smoke run checks the growth runs work too, on sizes that import in a second.
    growth: values.growth || smoke,
    growthBase: Math.floor(number('growth-base', values['growth-base'], smoke ? 200 : 10_000)),
    scenarios,
    smoke,
    pin: !values['no-pin'],
    logLevel: values['log-level'],
    resultsDir: values['results-dir'],
    compare: values.compare ? [positionals[0] as string, positionals[1] as string] : undefined,
  }
}

// The shape of a result file (bench/results/*.json), written by run.ts and read by --compare.
import type { LoadFigures } from './load-driver.ts'
import type { Warmup } from './options.ts'
import type { ScenarioName } from './scenarios.ts'
import type { Verification } from './verify.ts'

export interface Measured extends LoadFigures {
  /** VmHWM of the server during the run (since its start where the kernel cannot reset it), bytes. */
  readonly peakRssBytes: number | undefined
  /** Server CPU (user + system, /proc/<pid>/stat) per request of the measured run, µs. */
  readonly cpuMicrosPerRequest?: number | undefined
  /**
   * CPU of the database server's processes serving this server's database (a local PostgreSQL's,
   * /proc/<pid>/stat) per request of the measured run, µs; the median over the rounds.
   */
  readonly storeCpuMicrosPerRequest?: number | undefined
}

export interface ScenarioResult {
  readonly scenario: ScenarioName
  readonly what: string
  /** Events in the database when the run began. */
  readonly events: number
  /** With several rounds: the round whose requests/s is the median, with every round's errors. */
  readonly service: Measured
  readonly baseline: Measured
  /** Service requests/s ÷ baseline requests/s; with several rounds, the median of the rounds'. */
  readonly ratio: number
  /**
   * Baseline CPU per request ÷ service CPU per request (1 is as cheap as the baseline); with
   * several rounds, the median of the rounds'.
   */
  readonly cpuRatio?: number
  /** Each round's requests/s, in the order measured (absent in files from before rounds). */
  readonly rounds?: {
    readonly service: number[]
    readonly baseline: number[]
    /** CPU µs per request of each round. */
    readonly serviceCpu?: (number | undefined)[]
    readonly baselineCpu?: (number | undefined)[]
  }
  /** Non-2xx answers and socket errors of both servers. */
  readonly errors: number
}

export interface GrowthResult {
  readonly scenario: ScenarioName
  readonly baseEvents: number
  readonly events: number
  /** Requests/s at `events` ÷ requests/s at `baseEvents`: 1 is flat. */
  readonly serviceGrowth: number
  readonly baselineGrowth: number
}

export interface BenchResult {
  readonly format: 1
  readonly date: string
  readonly commit: string
  /** Uncommitted changes in src/ when it ran. */
  readonly dirty: boolean
  readonly store: 'sqlite' | 'postgres'
  readonly events: number
  readonly smoke: boolean
  readonly run: {
    readonly seconds?: number
    readonly requests?: number
    readonly connections: number
    /** Measured runs per scenario and server (absent: 1). */
    readonly rounds?: number
    /** The --load option (absent in results from before wrk: autocannon). */
    readonly load?: string
    /** The warm-up before each measured run (options.ts Warmup; absent in older results). */
    readonly warmup?: Warmup
  }
  readonly pinning: string
  readonly peakRss: string
  readonly logLevel: string
  /** Each server's Node flags: the production command's and BENCH_*_NODE_FLAGS (absent in older results). */
  readonly nodeFlags?: { readonly service: readonly string[]; readonly baseline: readonly string[] }
  /** The service's limit settings during the run. */
  readonly limits?: string
  readonly machine: { readonly node: string; readonly cpus: number; readonly cpu: string }
  readonly verification: Verification
  readonly scenarios: ScenarioResult[]
  readonly growth: GrowthResult[]
}

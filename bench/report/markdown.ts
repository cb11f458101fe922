// A result as a Markdown table, for the terminal and for bench/results/*.md.

import type { Warmup } from '../options.ts'
import type { BenchResult, Measured, ScenarioResult } from '../result.ts'

const int = (n: number) => Math.round(n).toLocaleString('en')
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1))
const mib = (bytes: number | undefined) =>
  bytes === undefined ? '—' : `${(bytes / 1_048_576).toFixed(0)} MiB`
const errors = (m: Measured) => m.non2xx + m.socketErrors
const cpu = (m: Measured) => (m.cpuMicrosPerRequest === undefined ? '–' : m.cpuMicrosPerRequest.toFixed(0))
const storeCpu = (m: Measured) =>
  m.storeCpuMicrosPerRequest === undefined ? '–' : m.storeCpuMicrosPerRequest.toFixed(0)

/** Baseline CPU per request ÷ the service's, with the lowest and highest round's. */
function cpuRatioCell(s: ScenarioResult): string {
  if (s.cpuRatio === undefined) return '–'
  const { serviceCpu, baselineCpu } = s.rounds ?? {}
  if (!serviceCpu || !baselineCpu || serviceCpu.length < 2) return s.cpuRatio.toFixed(2)
  const ratios = serviceCpu.flatMap((c, i) => (c && baselineCpu[i] ? [(baselineCpu[i] as number) / c] : []))
  return `${s.cpuRatio.toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`
}

/** The ratio; with several rounds, the lowest and highest round's too, so that the noise shows. */
function ratioCell(s: ScenarioResult): string {
  const rounds = s.rounds
  if (!rounds || rounds.service.length < 2) return s.ratio.toFixed(2)
  const ratios = rounds.service.map((rps, i) => {
    const baseline = rounds.baseline[i] ?? 0
    return baseline > 0 ? rps / baseline : 0
  })
  return `${s.ratio.toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`
}

/** Which load generator drove which scenarios: `wrk`, or `wrk; autocannon for signed-put-event`. */
function loadGenerators(result: BenchResult): string {
  const byDriver = new Map<string, string[]>()
  for (const s of result.scenarios) {
    const driver = s.service.driver ?? 'autocannon'
    byDriver.set(driver, [...(byDriver.get(driver) ?? []), s.scenario])
  }
  const [main, ...others] = [...byDriver.entries()].sort((a, b) => b[1].length - a[1].length)
  if (!main) return 'no runs'
  return [
    main[0],
    ...others.map(([driver, names]) => `${driver} for ${[...new Set(names)].join(', ')}`),
  ].join('; ')
}

export function markdown(result: BenchResult): string {
  // The database's own CPU, where its processes run on this machine (a local PostgreSQL).
  const withStore = result.scenarios.some((s) => s.service.storeCpuMicrosPerRequest !== undefined)
  const lines = [
    `# Benchmark ${result.date} (${result.commit}${result.dirty ? ', uncommitted changes in src/' : ''})`,
    '',
    `- store: ${result.store}, ${int(result.events)} events${result.smoke ? ' (smoke run: the figures mean nothing)' : ''}`,
    `- each run: ${result.run.seconds !== undefined ? `${result.run.seconds} s` : `${result.run.requests} requests`}, ${result.run.connections} connections (${loadGenerators(result)}, in a process of its own)`,
    ...(result.run.warmup ? [`- warm-up: ${warmupText(result.run.warmup)}`] : []),
    ...((result.run.rounds ?? 1) > 1
      ? [
          `- ${result.run.rounds} rounds per scenario, service and baseline in turn: req/s and latencies of the median round, the ratio the median of the rounds' ratios (lowest–highest round in brackets), errors and peak RSS over all rounds`,
        ]
      : []),
    `- ${result.pinning}`,
    `- peak RSS: ${result.peakRss}`,
    ...(result.limits ? [`- service limits: ${result.limits}`] : []),
    `- service LOG_LEVEL=${result.logLevel}; Node ${result.machine.node}, ${result.machine.cpus} × ${result.machine.cpu}`,
    `- baseline bytes: ${result.verification.identical ? 'identical to the service’s (checked before the runs)' : `DIFFER: ${result.verification.differences.join('; ')}`}`,
    '',
    `| scenario | events | service req/s | baseline req/s | ratio | CPU µs/req service / baseline | CPU ratio | ${withStore ? 'database CPU µs/req service / baseline | ' : ''}service p50 / p99 ms | baseline p50 / p99 ms | errors (service / baseline) | service peak RSS |`,
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: | ${withStore ? '---: | ' : ''}---: | ---: | ---: | ---: |`,
    ...result.scenarios.map(
      (s) =>
        `| ${s.scenario} | ${int(s.events)} | ${int(s.service.rps)} | ${int(s.baseline.rps)} | ${ratioCell(s)} | ` +
        `${cpu(s.service)} / ${cpu(s.baseline)} | ${cpuRatioCell(s)} | ` +
        (withStore ? `${storeCpu(s.service)} / ${storeCpu(s.baseline)} | ` : '') +
        `${ms(s.service.p50Ms)} / ${ms(s.service.p99Ms)} | ${ms(s.baseline.p50Ms)} / ${ms(s.baseline.p99Ms)} | ` +
        `${errors(s.service)} / ${errors(s.baseline)} | ${mib(s.service.peakRssBytes)} |`,
    ),
  ]
  if (result.growth.length > 0) {
    lines.push(
      '',
      'Growth (requests/s at the larger size ÷ at the smaller; 1.00 is flat):',
      '',
      '| scenario | sizes | service | baseline |',
      '| --- | --- | ---: | ---: |',
      ...result.growth.map(
        (g) =>
          `| ${g.scenario} | ${int(g.baseEvents)} → ${int(g.events)} | ${g.serviceGrowth.toFixed(2)} | ${g.baselineGrowth.toFixed(2)} |`,
      ),
    )
  }
  lines.push(
    '',
    'ratio = service req/s ÷ baseline req/s (the baseline is the limit: bench/README.md). CPU ratio = baseline CPU per request ÷ service CPU per request (user + system from /proc/<pid>/stat, before and after each measured run). Writes to the baseline are unauthenticated.',
    '',
  )
  return lines.join('\n')
}

function warmupText(warmup: Warmup): string {
  if ('requests' in warmup) return `${warmup.requests} requests before each run`
  const first =
    warmup.firstRequests > 0
      ? `, and before a scenario's first run on each server until ${int(warmup.firstRequests)} requests are answered (at most ${warmup.firstMaxSeconds} s)`
      : ''
  return `${warmup.seconds} s before each run${first}`
}

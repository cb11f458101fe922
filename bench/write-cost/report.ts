// The figures of bench/write-cost.ts: per configuration and operation, the median batch of each
// round, its difference from the full schema of the same round, and the medians over rounds.
import type { SchemaPart } from './catalog.ts'
import type { BatchFigures } from './measure.ts'

export interface Configuration {
  readonly name: string
  /** The part taken away; none for the full schema and the bare table. */
  readonly part?: SchemaPart
  readonly bare?: boolean
}

export interface Measured {
  readonly put: readonly BatchFigures[]
  readonly post: readonly BatchFigures[]
}

export type Outcome = Measured | { readonly failed: string }

/** One operation's figures, each the median over rounds; `saved*` is full minus this, per write. */
export interface Figures {
  readonly wallUs: number
  readonly cpuUs: number
  readonly processCpuUs: number
  readonly serverCpuUs: number | undefined
  readonly savedWallUs: number
  readonly savedWallShare: number
  readonly savedCpuUs: number
  readonly savedCpuShare: number
}

export interface Summary {
  readonly name: string
  readonly part?: SchemaPart
  readonly failed?: string
  readonly put?: Figures
  readonly post?: Figures
}

export function median(numbers: readonly number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  if (sorted.length === 0) return Number.NaN
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

const operations = ['put', 'post'] as const
type Operation = (typeof operations)[number]

const perWrite = (batch: BatchFigures) => ({
  wallUs: batch.wallUs,
  processCpuUs: batch.processCpuUs,
  serverCpuUs: batch.serverCpuUs,
  cpuUs: batch.processCpuUs + (batch.serverCpuUs ?? 0),
})

/**
 * Each batch is compared with the full schema's batch of the same cycle (its first copy; the
 * second is measured as any other configuration, to show what two identical ones differ by): the
 * difference and the share per cycle, their median over the cycles of a round, and the median of
 * those over the rounds.
 */
export function summarise(
  configurations: readonly Configuration[],
  results: readonly Outcome[][],
): Summary[] {
  const full = configurations.findIndex((c) => !c.part && !c.bare)
  const reference = (op: Operation, round: number, cycle: number) => {
    const outcome = results[full]?.[round]
    const batch = outcome && !('failed' in outcome) ? outcome[op][cycle] : undefined
    return batch ? perWrite(batch) : { wallUs: Number.NaN, cpuUs: Number.NaN }
  }
  return configurations.map((configuration, i): Summary => {
    const outcomes = results[i] ?? []
    const failed = outcomes.find((o): o is { failed: string } => 'failed' in o)
    if (failed) return { name: configuration.name, part: configuration.part, failed: failed.failed }
    const figures = (op: Operation): Figures => {
      const rounds = (outcomes as Measured[]).map((measured, round) => {
        const cycles = measured[op].map((batch, cycle) => {
          const f = perWrite(batch)
          const ref = reference(op, round, cycle)
          return {
            ...f,
            savedWallUs: ref.wallUs - f.wallUs,
            savedWallShare: (ref.wallUs - f.wallUs) / ref.wallUs,
            savedCpuUs: ref.cpuUs - f.cpuUs,
            savedCpuShare: (ref.cpuUs - f.cpuUs) / ref.cpuUs,
          }
        })
        return summed(cycles)
      })
      return summed(rounds)
    }
    return { name: configuration.name, part: configuration.part, put: figures('put'), post: figures('post') }
  })
}

/** The median of each figure. */
export function summed(list: readonly Figures[]): Figures {
  const m = (pick: (f: Figures) => number) => median(list.map(pick))
  const server = list.map((f) => f.serverCpuUs)
  return {
    wallUs: m((f) => f.wallUs),
    cpuUs: m((f) => f.cpuUs),
    processCpuUs: m((f) => f.processCpuUs),
    serverCpuUs: server.every((s) => s !== undefined) ? median(server as number[]) : undefined,
    savedWallUs: m((f) => f.savedWallUs),
    savedWallShare: m((f) => f.savedWallShare),
    savedCpuUs: m((f) => f.savedCpuUs),
    savedCpuShare: m((f) => f.savedCpuShare),
  }
}

const us = (n: number) => n.toFixed(0)
const signed = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(0)}`
const percent = (n: number) => `${n >= 0 ? '' : '−'}${Math.abs(n * 100).toFixed(0)} %`

const titles: Record<Operation, string> = {
  put: 'PUT: store.updateEvent as an authenticated PUT calls it (title and date changed)',
  post: 'POST: store.createEvent',
}

/** What report() and combine() read of a result. */
export interface WriteCostResult {
  readonly store: string
  readonly events: number
  readonly writesPerBatch: number
  readonly batches: number
  readonly rounds: number
  readonly commit: string
  readonly machine: { readonly loadAverage: number[] }
  readonly configurations: readonly Summary[]
  /** Whether the PUTs sent the titles as stored (`--keep-titles`). */
  readonly keepTitles?: boolean
  /** Set when the figures are the medians of several result files (combine). */
  readonly runs?: number
}

/** The medians of several runs' figures, configuration by configuration (`--combine`). */
export function combine(results: readonly WriteCostResult[]): WriteCostResult {
  const [first] = results
  if (!first) throw new Error('nothing to combine')
  const configurations = first.configurations.map((c): Summary => {
    const same = results.map((r) => r.configurations.find((o) => o.name === c.name))
    const puts = same.flatMap((s) => (s?.put ? [s.put] : []))
    const posts = same.flatMap((s) => (s?.post ? [s.post] : []))
    if (puts.length < results.length || posts.length < results.length)
      return { name: c.name, part: c.part, failed: same.find((s) => s?.failed)?.failed ?? 'not in every run' }
    return { name: c.name, part: c.part, put: summed(puts), post: summed(posts) }
  })
  return {
    ...first,
    runs: results.length,
    commit: [...new Set(results.map((r) => r.commit))].join(', '),
    machine: { loadAverage: results.flatMap((r) => r.machine.loadAverage.slice(0, 1)) },
    configurations,
  }
}

export function report(result: WriteCostResult): string {
  const server = result.store === 'postgres'
  const cpu = server ? 'CPU µs/write (this process + backends)' : 'CPU µs/write'
  const lines = [
    `write cost, ${result.store}, ${result.events.toLocaleString('en')} events, commit ${result.commit}: ` +
      `${result.batches} batches of ${result.writesPerBatch} writes, medians of ${result.rounds} round(s)` +
      (result.runs ? `, then of ${result.runs} runs (their 1-minute load averages: ` : '; load average ') +
      `${result.machine.loadAverage.map((l) => l.toFixed(1)).join(result.runs ? ', ' : ' ')}${result.runs ? ')' : ''}`,
    'Δ: what taking the part away saves per write (the full schema minus this configuration, batch by batch in the same cycle); share: Δ ÷ the full write. The second copy of the full schema shows what two identical configurations differ by: the noise.',
  ]
  for (const op of operations) {
    lines.push(
      '',
      op === 'put' && result.keepTitles
        ? titles.put.replace('title and date changed', 'date changed, the title sent as stored')
        : titles[op],
      '',
      `| configuration | µs/write | Δ from full | share of full | ${cpu} | Δ CPU | CPU share |`,
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    )
    for (const c of result.configurations) {
      const f = c[op]
      if (!f) {
        lines.push(`| ${c.name} | not measured: ${c.failed ?? ''} | | | | | |`)
        continue
      }
      const cpuText =
        server && f.serverCpuUs !== undefined
          ? `${us(f.cpuUs)} (${us(f.processCpuUs)} + ${us(f.serverCpuUs)})`
          : us(f.cpuUs)
      lines.push(
        `| ${c.name} | ${us(f.wallUs)} | ${signed(f.savedWallUs)} | ${percent(f.savedWallShare)} | ${cpuText} | ${signed(f.savedCpuUs)} | ${percent(f.savedCpuShare)} |`,
      )
    }
  }
  return `${lines.join('\n')}\n`
}

// A Prometheus histogram of request latency that counts in plain arrays and hands prom-client its
// series only when /metrics is read. prom-client's Histogram.observe validates the label object
// and hashes it on every call, which was the largest single cost of a GET by id in the metrics
// hook (perf, CPU samples). One series per label set, found by the caller's own key.
import type {
  LabelValues,
  Metric,
  MetricObjectWithValues,
  MetricType,
  MetricValueWithName,
  Registry,
} from 'prom-client'

export interface LatencySeries {
  observe(seconds: number): void
}

export class LatencyHistogram {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  readonly #series = new Map<string, { labels: LabelValues<string>; counts: number[]; sum: number }>()

  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds, ascending; +Inf is added. */
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    // prom-client's registry reads any object with a name and get(); its type names only its own.
    registry.registerMetric(this as unknown as Metric)
  }

  /** The series of one label set; callers keep it, so no lookup happens per observation. */
  series(labels: LabelValues<string>): LatencySeries {
    const entry = { labels, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0 }
    this.#series.set(JSON.stringify(labels), entry)
    const buckets = this.buckets
    return {
      observe(seconds) {
        let i = 0
        while (i < buckets.length && seconds > (buckets[i] as number)) i++
        entry.counts[i] = (entry.counts[i] as number) + 1
        entry.sum += seconds
      },
    }
  }

  async get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const values: MetricValueWithName<string>[] = []
    for (const { labels, counts, sum } of this.#series.values()) {
      let cumulative = 0
      counts.forEach((count, i) => {
        cumulative += count
        const le = i < this.buckets.length ? (this.buckets[i] as number) : '+Inf'
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${this.name}_bucket` })
      })
      values.push({ labels, value: sum, metricName: `${this.name}_sum` })
      values.push({ labels, value: cumulative, metricName: `${this.name}_count` })
    }
    return {
      name: this.name,
      help: this.help,
      // The registry writes this string into `# TYPE`; prom-client declares the field as a numeric
      // enum that its JavaScript does not have.
      type: this.type as unknown as MetricType,
      aggregator: this.aggregator,
      values,
      collect: () => {},
    }
  }
}

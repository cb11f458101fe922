// The metrics of the read replicas (DATABASE_READ_URL), beside the others in /metrics.
import { Counter, Gauge, type Registry } from 'prom-client'
import type { ReplicaStats } from '../store/event-store.ts'

/** Registers the replicas' metrics in `registry`; `stats` gives the store's figures since it opened. */
export function registerReplicaMetrics(registry: Registry, stats: () => ReplicaStats | undefined): void {
  // The store counts since it opened; a counter here only moves forward by what is new.
  const counted = new Map<string, number>()
  const since = (key: string, now: number) => {
    const delta = now - (counted.get(key) ?? 0)
    counted.set(key, now)
    return delta
  }
  new Counter({
    name: 'db_reads_total',
    help: 'Plain reads (GET, HEAD, QUERY of events and locations) by where they were served: "primary" or "replica <host:port>"',
    labelNames: ['target'],
    registers: [registry],
    collect() {
      const figures = stats()
      if (!figures) return
      this.inc({ target: 'primary' }, since('primary', figures.primaryReads))
      for (const replica of figures.replicas) {
        const target = `replica ${replica.name}`
        this.inc({ target }, since(target, replica.reads))
      }
    },
  })
  new Counter({
    name: 'db_replica_read_retries_total',
    help: 'Plain reads that failed on a replica (down, or a query it cancelled) and were run again on the primary',
    registers: [registry],
    collect() {
      this.inc(since('retried', stats()?.retried ?? counted.get('retried') ?? 0))
    },
  })
  new Gauge({
    name: 'db_replica_lag_seconds',
    help: 'How far behind the primary each replica was at its last check (absent while unknown)',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      this.reset()
      for (const { name, lagMs } of stats()?.replicas ?? []) {
        if (lagMs !== undefined) this.set({ replica: name }, lagMs / 1000)
      }
    },
  })
  new Gauge({
    name: 'db_replica_up',
    help: 'Whether each replica serves reads now (1), or is skipped: down, lagging past REPLICA_MAX_LAG_MS, not yet checked, or no replica (0)',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const { name, state } of stats()?.replicas ?? [])
        this.set({ replica: name }, state === 'up' ? 1 : 0)
    },
  })
}

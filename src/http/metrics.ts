// Prometheus metrics: requests and their latency by route and status, the database pool, and
// the process. One registry per app, so tests can build many apps side by side.
import type { FastifyInstance } from 'fastify'
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import { mediaTypes } from '../contract/media-types.ts'
import type { EventStore } from '../store/event-store.ts'
import { LatencyHistogram, type LatencySeries } from './latency-histogram.ts'
import { registerReplicaMetrics } from './replica-metrics.ts'
import { registerResource } from './resource.ts'

export interface MetricSources {
  /** Change feeds open now. */
  readonly feedConnections: () => number
  /** Password hashes (Argon2id) computed since the start. */
  readonly passwordHashes: () => number
}

/** Counts one answered request, with its time in milliseconds. */
export type RecordAnswer = (method: string, route: string, status: number, elapsedMs: number) => void

export function registerMetrics(
  app: FastifyInstance,
  store: EventStore,
  sources: MetricSources,
): RecordAnswer {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const labelNames = ['method', 'route', 'status'] as const
  type Labels = Record<(typeof labelNames)[number], string>
  // Answers are counted here, per label combination, and handed to prom-client when it is read:
  // its inc() hashes and validates the labels object on every call.
  const answered = new Map<string, { readonly labels: Labels; count: number; latency: LatencySeries }>()
  new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames,
    registers: [registry],
    collect() {
      for (const entry of answered.values()) {
        if (entry.count === 0) continue
        this.inc(entry.labels, entry.count)
        entry.count = 0
      }
    },
  })
  const duration = new LatencyHistogram(
    'http_request_duration_seconds',
    'Time from request to response, by method, route pattern and status',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registry,
  )
  const serverErrors = new Counter({
    name: 'http_server_errors_total',
    help: 'Responses with a 5xx status',
    registers: [registry],
  })
  if (store.poolStats) {
    const stats = store.poolStats.bind(store)
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool connections by state (total, idle) and requests waiting for one',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const pool = stats()
        if (!pool) return
        const { total, idle, waiting } = pool
        this.set({ state: 'total' }, total)
        this.set({ state: 'idle' }, idle)
        this.set({ state: 'waiting' }, waiting)
      },
    })
  }
  if (store.readerStats) {
    const stats = store.readerStats.bind(store)
    // The store counts since it opened; a counter here only moves forward by what is new.
    const counted = { overBudget: 0, crashed: 0, waits: 0, waitedMs: 0, refused: 0 }
    const since = (key: keyof typeof counted) => {
      const now = stats()?.[key] ?? counted[key]
      const delta = now - counted[key]
      counted[key] = now
      return delta
    }
    new Counter({
      name: 'db_reads_over_budget_total',
      help: 'Costly reads refused (503 too_costly) because they did not finish within READ_BUDGET_MS (PostgreSQL: statements cancelled by their statement_timeout)',
      registers: [registry],
      collect() {
        this.inc(since('overBudget'))
      },
    })
    new Gauge({
      name: 'db_costly_reads_queued',
      help: 'Costly reads (filtered pages of /events) waiting now for a reader thread (SQLite) or a connection of their share (PostgreSQL)',
      registers: [registry],
      collect() {
        this.set(stats()?.queued ?? 0)
      },
    })
    new Counter({
      name: 'db_costly_read_waits_total',
      help: 'Costly reads that found every reader or connection of their share busy and waited',
      registers: [registry],
      collect() {
        this.inc(since('waits'))
      },
    })
    new Counter({
      name: 'db_costly_read_wait_seconds_total',
      help: 'Time costly reads spent waiting for a reader or a connection of their share',
      registers: [registry],
      collect() {
        this.inc(since('waitedMs') / 1000)
      },
    })
    new Counter({
      name: 'db_costly_reads_refused_total',
      help: 'Costly reads refused (503 too_costly) because no connection of their share freed within COSTLY_READ_QUEUE_MS (PostgreSQL)',
      registers: [registry],
      collect() {
        this.inc(since('refused'))
      },
    })
    new Counter({
      name: 'db_reader_crashes_total',
      help: 'Reader threads (SQLite) that stopped unexpectedly and were replaced',
      registers: [registry],
      collect() {
        this.inc(since('crashed'))
      },
    })
  }

  if (store.replicaStats?.()) registerReplicaMetrics(registry, () => store.replicaStats?.())

  let hashesCounted = 0
  new Counter({
    name: 'auth_password_hashes_total',
    help: 'Argon2id computations (Basic credentials not remembered, wrong passwords, upgrades); each holds PASSWORD_HASH_MEMORY_KIB while it runs',
    registers: [registry],
    collect() {
      const now = sources.passwordHashes()
      this.inc(now - hashesCounted)
      hashesCounted = now
    },
  })
  new Gauge({
    name: 'feed_connections',
    help: 'Change feeds (GET /events as text/event-stream) open now',
    registers: [registry],
    collect() {
      this.set(sources.feedConnections())
    },
  })

  const record: RecordAnswer = (method, route, status, elapsedMs) => {
    const key = `${status} ${method} ${route}`
    let entry = answered.get(key)
    if (!entry) {
      const labels = { method, route, status: String(status) }
      entry = { labels, count: 0, latency: duration.series(labels) }
      answered.set(key, entry)
    }
    entry.count++
    entry.latency.observe(elapsedMs / 1000)
    if (status >= 500) serverErrors.inc()
  }

  app.addHook('onResponse', (request, reply, done) => {
    // A feed lasts as long as its client stays: counted by feed_connections, and left out of the
    // requests and their latency, where one would swamp every bucket.
    if (reply.getHeader('content-type') === mediaTypes.eventStream && reply.statusCode === 200) {
      done()
      return
    }
    // The route pattern, never the raw URL, so label values stay few.
    record(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime)
    done()
  })

  registerResource(app, '/metrics', {
    GET: {
      produces: ['text/plain'],
      async handler(_request, reply) {
        reply.header('cache-control', 'no-store').type(registry.contentType)
        return registry.metrics()
      },
    },
  })
  return record
}

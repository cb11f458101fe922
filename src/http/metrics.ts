// Prometheus metrics: requests and their latency by route and status, the database pool, and
// the process. One registry per app, so tests can build many apps side by side.
import type { FastifyInstance } from 'fastify'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { EventStore } from '../store/event-store.ts'
import { registerResource } from './resource.ts'

export function registerMetrics(app: FastifyInstance, store: EventStore): void {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const labelNames = ['method', 'route', 'status'] as const
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by method, route pattern and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
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

  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL, so label values stay few.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    }
    requests.inc(labels)
    duration.observe(labels, reply.elapsedTime / 1000)
    if (reply.statusCode >= 500) serverErrors.inc()
  })

  registerResource(app, '/metrics', {
    GET: {
      produces: ['text/plain'],
      async handler(_request, reply) {
        reply.header('cache-control', 'no-store')
        return reply.type(registry.contentType).send(await registry.metrics())
      },
    },
  })
}

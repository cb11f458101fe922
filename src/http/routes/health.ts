// Liveness says the process answers; readiness says it can reach its database. With REDIS_URL set,
// readiness also tells whether the rate-limit counters are shared through Redis (`checks.redis`,
// and in words `details.redis`):
// Redis being away is no outage (each instance counts alone meanwhile), so it never turns the
// answer into a 503 that would take every instance out of a load balancer at once.
import type { FastifyInstance } from 'fastify'
import { mediaTypes } from '../../contract/media-types.ts'
import { Health } from '../../contract/schemas.ts'
import { DomainError } from '../../domain/errors.ts'
import type { EventStore } from '../../store/event-store.ts'
import type { Counters } from '../rate-limit-store.ts'
import { registerResource } from '../resource.ts'

export function healthRoutes(app: FastifyInstance, store: EventStore, counters?: Counters): void {
  registerResource(app, '/health/live', {
    GET: {
      produces: [mediaTypes.json],
      schema: { response: { 200: Health } },
      async handler(_request, reply) {
        reply.header('cache-control', 'no-store')
        return { status: 'live' }
      },
    },
  })
  registerResource(app, '/health/ready', {
    GET: {
      produces: [mediaTypes.json],
      schema: { response: { 200: Health } },
      async handler(request, reply) {
        reply.header('cache-control', 'no-store')
        try {
          await store.ping()
        } catch (error) {
          request.log.warn({ err: error }, 'database not reachable')
          reply.header('retry-after', '5')
          throw new DomainError('unavailable', 'the database cannot be reached')
        }
        // One flat entry per dependency; the words about Redis's state beside them, not inside.
        const redis = counters?.state()
        // A replica down or lagging is no outage either: its reads go to the primary meanwhile.
        const replicas = store.replicaStats?.()?.replicas.map(({ name, state, lagMs }) => ({
          name,
          state,
          ...(lagMs !== undefined && { lag_ms: Math.round(lagMs) }),
        }))
        return {
          ...(redis
            ? {
                status: 'ready',
                checks: { database: 'up', redis: redis.redis },
                details: { redis: redis.detail },
              }
            : { status: 'ready', checks: { database: 'up' } }),
          ...(replicas && { replicas }),
        }
      },
    },
  })
}

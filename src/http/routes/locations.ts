import type { FastifyInstance } from 'fastify'
import { mediaTypes } from '../../contract/media-types.ts'
import { Location } from '../../contract/schemas.ts'
import { DomainError } from '../../domain/errors.ts'
import { versionEtag } from '../../domain/etag.ts'
import type { EventStore } from '../../store/event-store.ts'
import { notModified } from '../conditional.ts'
import { parseId } from '../ids.ts'
import { representLocation } from '../represent.ts'
import { registerResource } from '../resource.ts'

export function locationRoutes(app: FastifyInstance, store: EventStore): void {
  registerResource(app, '/locations/:id', {
    GET: {
      produces: [mediaTypes.location, mediaTypes.json],
      schema: { response: { 200: Location } },
      async handler(request, reply) {
        const id = parseId((request.params as { id: string }).id, 'location')
        const location = await store.getLocation(id)
        // RFC 9110 §13.2.1: a missing location is a 404 whatever the preconditions say.
        if (!location) throw new DomainError('not_found', `there is no location ${id}`)
        if (notModified(request, reply, versionEtag(location.version), `location ${id}`)) {
          return reply.code(304).send()
        }
        return reply.type(request.representation ?? mediaTypes.location).send(representLocation(location))
      },
    },
  })
}

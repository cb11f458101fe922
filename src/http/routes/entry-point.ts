// GET /: the one URL a client needs (CONTRACT.md §2, entry point); every resource is reached by
// following links from here. The links travel in the body and, as RFC 8288 links, in `Link`.
import type { FastifyInstance } from 'fastify'
import { mediaTypes } from '../../contract/media-types.ts'
import { EntryPoint } from '../../contract/schemas.ts'
import { linkHeader, paths } from '../links.ts'
import { representEntryPoint } from '../represent.ts'
import { registerResource } from '../resource.ts'

export function entryPointRoutes(app: FastifyInstance): void {
  registerResource(app, paths.entryPoint, {
    GET: {
      produces: [mediaTypes.api, mediaTypes.json],
      links: true,
      schema: { response: { 200: EntryPoint } },
      async handler(request, reply) {
        const body = representEntryPoint()
        return reply
          .header('link', linkHeader(body.links))
          .type(request.representation ?? mediaTypes.api)
          .send(body)
      },
    },
  })
}

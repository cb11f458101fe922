// GET /: the one URL a client needs (CONTRACT.md §2, entry point); every resource is reached by
// following links from here. The links travel in the body and, as RFC 8288 links, in `Link`.
import type { FastifyInstance } from 'fastify'
import { mediaTypes } from '../../contract/media-types.ts'
import { EntryPoint } from '../../contract/schemas.ts'
import { entryPage } from '../html/entry-page.ts'
import { htmlBody } from '../html/send.ts'
import { linkHeader, paths } from '../links.ts'
import { representEntryPoint } from '../represent.ts'
import { registerResource } from '../resource.ts'

export function entryPointRoutes(app: FastifyInstance): void {
  registerResource(app, paths.entryPoint, {
    GET: {
      produces: [mediaTypes.api, mediaTypes.json, mediaTypes.html],
      links: true,
      schema: { response: { 200: EntryPoint } },
      async handler(request, reply) {
        const body = representEntryPoint()
        reply.header('link', linkHeader(body.links))
        if (request.representation === mediaTypes.html) {
          const page = entryPage((path) => request.externalUrl(path))
          return htmlBody(request, reply, page, 'the entry point')
        }
        reply.type(request.representation ?? mediaTypes.api)
        return body
      },
    },
  })
}

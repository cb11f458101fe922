// The link relations the service defines are URIs relative to the base URL; dereferencing one
// explains it (RFC 8288 §2.1.2), as JSON or, for a browser, as a page (http/relation-docs.ts).
import type { FastifyInstance } from 'fastify'
import { mediaTypes } from '../../contract/media-types.ts'
import { relationPage } from '../html/relation-page.ts'
import { htmlBody } from '../html/send.ts'
import { prose, type RelationDoc, relationDoc } from '../relation-docs.ts'
import { registerResource } from '../resource.ts'

export function relationRoutes(app: FastifyInstance): void {
  for (const text of prose) {
    // Made on first use: by then every route of the table is registered.
    let doc: RelationDoc | undefined
    registerResource(app, text.rel, {
      GET: {
        produces: [mediaTypes.json, mediaTypes.html],
        async handler(request, reply) {
          doc ??= relationDoc(app, text)
          const caching = { 'cache-control': 'public, max-age=86400' }
          if (request.representation === mediaTypes.html) {
            const page = relationPage((path) => request.externalUrl(path), doc)
            return htmlBody(request, reply, page, doc.rel, caching)
          }
          reply.headers(caching).type(mediaTypes.json)
          return doc
        },
      },
    })
  }
}

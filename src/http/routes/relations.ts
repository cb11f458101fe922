// The link relations the service defines are URIs relative to the base URL; dereferencing one
// explains it (RFC 8288 §2.1.2), as JSON or, for a browser, as a small HTML page.
import type { FastifyInstance } from 'fastify'
import { linkTypes, mediaTypes, relations } from '../../contract/media-types.ts'
import { registerResource } from '../resource.ts'

const documentation = [
  {
    rel: relations.event,
    title: 'Event',
    description:
      'The target is an event. On a link whose rel also says "self edit", it is the event itself: ' +
      'GET reads it, PUT replaces its title and date, PATCH merges changes, DELETE removes it.',
    type: linkTypes.event,
  },
  {
    rel: relations.location,
    title: 'Location',
    description:
      "The target is a location. On an event's link, it is where the event takes place. On a link " +
      'whose rel also says "self edit", it is the location itself: GET reads it, PUT replaces its ' +
      'name and address, PATCH merges changes, DELETE removes it (409 while events take place there).',
    type: linkTypes.location,
  },
  {
    rel: relations.events,
    title: 'Events',
    description:
      'The target is a collection of events, by date. GET (or QUERY, with the parameters as a JSON ' +
      'body) reads a page of it; POST adds an event. GET with Accept: text/event-stream is its change ' +
      'feed: Server-Sent Events "created", "updated" and "deleted" carrying the event as GET would ' +
      'answer right after the change, and "reset" when the collection must be read again; ' +
      'Last-Event-ID resumes after a change.',
    type: linkTypes.events,
  },
  {
    rel: relations.locations,
    title: 'Locations',
    description:
      'The target is the collection of locations, in id order, paged with page and per_page and the ' +
      'first, prev, next and last links of the Link header. POST adds a location.',
    type: linkTypes.locations,
  },
]

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export function relationRoutes(app: FastifyInstance): void {
  for (const doc of documentation) {
    registerResource(app, doc.rel, {
      GET: {
        produces: [mediaTypes.json, 'text/html'],
        async handler(request, reply) {
          reply.header('cache-control', 'public, max-age=86400')
          if (request.representation === 'text/html') {
            return reply
              .type('text/html; charset=utf-8')
              .send(
                `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.rel)}</title></head>` +
                  `<body><h1>Link relation <code>${escapeHtml(doc.rel)}</code></h1><p>${escapeHtml(doc.description)}</p>` +
                  `<p>Target media type: <code>${escapeHtml(doc.type)}+json</code></p></body></html>`,
              )
          }
          return reply.type(mediaTypes.json).send(doc)
        },
      },
    })
  }
}

// The words of the OpenAPI document: operation ids, tags, summaries and descriptions, each made
// from an operation's traits (http/resource.ts) so that the wording follows what is served.
import { mediaTypes } from '../contract/media-types.ts'
import type { Method, Operation } from './resource.ts'

/** Fastify's `/events/:id` as an OpenAPI path template, `/events/{id}`. */
export const pathTemplate = (url: string): string => url.replace(/:(\w+)/g, '{$1}')

export const tagDescriptions: Record<string, string> = {
  'entry point': 'Where a client starts: links to every collection and to this document.',
  events: 'Events, each at one location.',
  locations: 'Places where events take place.',
  relations: 'Documentation of the link relations the service defines.',
  operations: 'Probes and metrics for whoever runs the service.',
  documentation: 'This document and its reference page.',
}

export function tagOf(url: string): string {
  const first = url.split('/')[1] ?? ''
  const byFirst: Record<string, string> = {
    '': 'entry point',
    events: 'events',
    locations: 'locations',
    rel: 'relations',
    health: 'operations',
    metrics: 'operations',
  }
  return byFirst[first] ?? 'documentation'
}

export const operationId = (method: string, url: string) =>
  method.toLowerCase() +
  (url === '/'
    ? 'EntryPoint'
    : url
        .split(/[/.]/)
        .filter(Boolean)
        .map((part) => (part.startsWith(':') ? `By${capital(part.slice(1))}` : capital(part)))
        .join(''))

const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

/** A short title for the reference page, e.g. "Replace an event". */
export function summaryOf(method: Method | 'HEAD', url: string, op: Operation): string {
  const segments = url.split('/').filter(Boolean)
  const one = segments.at(-1)?.startsWith(':') === true
  const collection = (one ? segments.at(-2) : segments.at(-1)) ?? ''
  const item = collection.replace(/s$/, '')
  const thing = one ? `one ${item}` : collection === '' ? 'the entry point' : url
  switch (method) {
    case 'HEAD':
      return `Headers of GET ${pathTemplate(url)}`
    case 'QUERY':
      return `A page of ${collection}, parameters in the body (HTTP QUERY)`
    case 'POST':
      return op.created ? `Create ${/^[aeiou]/.test(item) ? 'an' : 'a'} ${item}` : `POST ${url}`
    case 'PUT':
      return `Replace ${thing}`
    case 'PATCH':
      return `Change ${thing} (merge patch)`
    case 'DELETE':
      return `Delete ${thing}`
    default:
      return op.paged ? `A page of ${collection}` : `Read ${thing}`
  }
}

export function successDescription(status: number, op: Operation): string {
  if (status === 201) return 'Created: the new resource, its path in Location.'
  if (status === 204) return 'Done; no body.'
  if (op.paged) return 'A page of the collection; `Link` has first, prev, next and last.'
  return 'The representation, in the type Accept chose.'
}

export function descriptionOf(method: Method | 'HEAD', op: Operation): string {
  const lines = [
    op.write
      ? 'Needs credentials of an editor: HTTP Basic or an `ers-v1` request signature.'
      : 'Needs no credentials; credentials that are sent are checked.',
  ]
  if (method === 'HEAD') lines.push('The headers of GET, without a body.')
  if (method === 'QUERY') {
    lines.push(
      'The HTTP QUERY method (a safe read with a body), for intermediaries that drop a GET’s body. OpenAPI 3.1 has no slot for it: this operation object is the `x-query` extension of the path item.',
    )
  }
  if (op.produces?.includes(mediaTypes.eventStream)) {
    lines.push(
      'With `Accept: text/event-stream`, the change feed: one Server-Sent Event per committed change; `Last-Event-ID` resumes.',
    )
  }
  if (op.describedBy) lines.push(`Documented further at ${op.describedBy}.`)
  return lines.join('\n\n')
}

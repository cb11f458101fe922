// What each link relation the service defines means (RFC 8288 §2.1.2). Beside the prose, the
// documentation is generated: the target's fields from its schemas (contract/field-docs.ts), and
// its methods and request bodies from the route table (http/resource.ts), so it cannot drift
// from what is served. Served by routes/relations.ts.
import type { FastifyInstance } from 'fastify'
import { describeFields, type FieldDoc } from '../contract/field-docs.ts'
import { linkTypes, mediaTypes, relations } from '../contract/media-types.ts'
import { allowedMethods, type Method, registeredResource } from './resource.ts'

export interface Prose {
  readonly rel: string
  readonly title: string
  readonly description: string
  /** The media type of the target, without +json, as links carry it. */
  readonly type: string
  /** The route (as the table writes it) of the resource a link of this relation targets. */
  readonly target: string
}

export const prose: readonly Prose[] = [
  {
    rel: relations.event,
    title: 'Event',
    description:
      'The target is an event. On a link whose rel also says "self edit", it is the event itself: ' +
      'GET reads it, PUT replaces its title and date, PATCH merges changes, DELETE removes it.',
    type: linkTypes.event,
    target: '/events/:id',
  },
  {
    rel: relations.location,
    title: 'Location',
    description:
      "The target is a location. On an event's link, it is where the event takes place. On a link " +
      'whose rel also says "self edit", it is the location itself: GET reads it, PUT replaces its ' +
      'name and address, PATCH merges changes, DELETE removes it (409 while events take place there).',
    type: linkTypes.location,
    target: '/locations/:id',
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
    target: '/events',
  },
  {
    rel: relations.locations,
    title: 'Locations',
    description:
      'The target is the collection of locations, in id order, paged with page and per_page and the ' +
      'first, prev, next and last links of the Link header. POST adds a location.',
    type: linkTypes.locations,
    target: '/locations',
  },
]

/** What a request with a body takes: its media types and fields. */
export interface RequestDoc {
  readonly method: string
  readonly media_types: readonly string[]
  readonly fields: readonly FieldDoc[]
}

export type RelationDoc = {
  readonly rel: string
  readonly title: string
  readonly description: string
  readonly type: string
  /** The target's own media type, as it answers GET. */
  readonly media_type: string
  /** What the target allows (its Allow field). */
  readonly methods: readonly string[]
  /** The fields of the target's representation. */
  readonly fields: readonly FieldDoc[]
  /** The requests to the target that carry a body (for GET and QUERY of a collection: its parameters). */
  readonly requests: readonly RequestDoc[]
}

/** The documentation of one relation, read from `app`'s route table once every route is registered. */
export function relationDoc(app: FastifyInstance, { target, ...text }: Prose): RelationDoc {
  const resource = registeredResource(app, target)
  if (!resource?.GET) throw new Error(`the relation ${text.rel} targets ${target}, which has no GET`)
  const response = (resource.GET.schema?.response as Record<number, unknown> | undefined)?.[200]
  const requests = (Object.entries(resource) as [Method, NonNullable<typeof resource.GET>][]).flatMap(
    ([method, operation]) =>
      operation.schema?.body && operation.consumes
        ? [{ method, media_types: operation.consumes, fields: describeFields(operation.schema.body) }]
        : [],
  )
  const sent = new Map<string, FieldDoc>()
  for (const field of requests.flatMap((request) => request.fields)) {
    if (!sent.has(field.name)) sent.set(field.name, field)
  }
  return {
    ...text,
    media_type: resource.GET.produces?.[0] ?? mediaTypes.json,
    methods: allowedMethods(resource),
    fields: describeFields(response).map((field) => {
      const written = sent.get(field.name)
      // Fields no request can send are the service's alone, whatever the schema says.
      if (!written) return { ...field, read_only: true as const }
      // A representation's schema says what is sent back; the rules of a value are the requests'.
      const description = field.description ?? written.description
      return {
        ...field,
        rules: field.rules.length > 0 ? field.rules : written.rules,
        ...(description !== undefined && { description }),
      }
    }),
    requests,
  }
}

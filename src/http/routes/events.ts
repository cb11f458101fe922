// /events and /events/<id>: thin handlers — validated input in, one store call, a representation out.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { mediaTypes, relations } from '../../contract/media-types.ts'
import {
  Event,
  EventCollection,
  EventCreate,
  EventPatch,
  EventReplace,
  EventsQueryBody,
} from '../../contract/schemas.ts'
import { dateProblemText, parseDateTime } from '../../domain/dates.ts'
import { invalidField } from '../../domain/errors.ts'
import { filterParameters, filterQuery, resolveFilter } from '../../domain/event-filter.ts'
import type { Event as DomainEvent, EventChanges } from '../../domain/types.ts'
import type { EventStore } from '../../store/event-store.ts'
import { confirmedWrite } from '../authenticate.ts'
import { requirePreconditions, writePrecondition } from '../conditional.ts'
import type { ChangeFeed } from '../event-feed.ts'
import { eventCollectionPage, eventPage, type LocationChoices, locationChoice } from '../html/event-pages.ts'
import { idempotencyLifetimeMs, parseIdempotencyKey, requestFingerprint } from '../idempotency-key.ts'
import { paths } from '../links.ts'
import { pagedCollection } from '../paged-collection.ts'
import { representCollection, representEvent } from '../represent.ts'
import { operation, registerResource } from '../resource.ts'
import { pathId, readOperation, requireSameId, writtenBody } from '../versioned-resource.ts'

const bodyTypes = [mediaTypes.event, mediaTypes.json]
const eventTypes = [mediaTypes.event, mediaTypes.json]
/** A write that takes an event body and answers with the event. */
const eventWrite = {
  write: true,
  produces: eventTypes,
  consumes: bodyTypes,
  bodyRequired: true,
  etag: true,
} as const

function toMillis(text: string): number {
  const parsed = parseDateTime(text)
  if (!parsed.ok) throw invalidField('/date', dateProblemText[parsed.problem])
  return parsed.value
}

export function eventRoutes(
  app: FastifyInstance,
  store: EventStore,
  maxPerPage: number,
  feed: ChangeFeed,
): void {
  const { list, currentEtag } = pagedCollection({
    path: paths.events,
    what: 'events',
    produces: [mediaTypes.events, mediaTypes.json],
    consumes: [mediaTypes.json, mediaTypes.events],
    schema: { body: EventsQueryBody, response: { 200: EventCollection } },
    maxPerPage,
    selection: {
      names: filterParameters,
      resolve: (body, query) => resolveFilter(body as EventsQueryBody | undefined, query),
      query: filterQuery,
    },
    read: async (page, filter) => {
      const { total, events } = await store.listEvents(page, filter)
      return { total, items: events }
    },
    represent: representCollection,
    // The page names each event's location: one read for the ids on the page, not one per event.
    html: async (url, view) => {
      const [locations, choices] = await Promise.all([
        store.getLocations(view.items.map((event) => event.locationId)),
        locationChoices(store),
      ])
      return eventCollectionPage(url, view, locations, choices)
    },
  })

  registerResource(app, paths.events, {
    GET: {
      ...list,
      // The change feed (CONTRACT.md §7) is a representation of GET /events alone, not of QUERY.
      produces: [...(list.produces ?? []), mediaTypes.eventStream],
      describedBy: relations.events,
      handler: (request, reply) =>
        request.representation === mediaTypes.eventStream
          ? feed.serve(request, reply)
          : list.handler(request, reply),
    },
    // The HTTP QUERY method: the same safe read, for intermediaries that drop a GET's body.
    QUERY: list,
    POST: operation({
      ...eventWrite,
      created: true,
      idempotencyKey: true,
      schema: { body: EventCreate, response: { 201: Event } },
      async handler(request, reply) {
        const body = request.body
        const input = { title: body.title, date: toMillis(body.date), locationId: body.location_id }
        // The target of POST is the collection, which always exists: If-Match: * holds and
        // If-None-Match: * fails (RFC 9110 §13.1.1, §13.1.2). Tags are compared with the ETag of
        // the collection's own representation, what GET /events without parameters answers: its
        // default page. That check precedes the insert but is not part of it (unlike PUT's).
        await requirePreconditions(request, currentEtag, 'the collection of events')
        const key = parseIdempotencyKey(request.headers['idempotency-key'])
        // A retry with the same key gets the first response again and creates nothing.
        const event = key
          ? (
              await store.createEventOnce(input, {
                principal: request.principal?.name ?? '',
                key,
                fingerprint: requestFingerprint([input.title, input.date, input.locationId]),
                lifetimeMs: idempotencyLifetimeMs,
              })
            ).event
          : await store.createEvent(input)
        return eventBody(reply.code(201).header('location', paths.event(event.id)), event)
      },
    }),
  })

  /** The store's update, confirming the principal's credentials in its statement. */
  const updateEvent = (request: FastifyRequest, id: number, changes: EventChanges) =>
    confirmedWrite(request, (asUser) => store.updateEvent(id, changes, writePrecondition(request), asUser))

  registerResource(app, '/events/:id', {
    GET: readOperation({
      what: 'event',
      produces: eventTypes,
      schema: { response: { 200: Event } },
      get: (id) => store.getEvent(id),
      represent: representEvent,
      // The page names the event's location, and its edit form offers the locations to move to.
      html: async (url, event) => {
        const [location, choices] = await Promise.all([
          store.getLocation(event.locationId),
          locationChoices(store),
        ])
        return eventPage(url, event, location, choices)
      },
    }),
    PUT: operation({
      ...eventWrite,
      confirmsCredentials: true,
      schema: { body: EventReplace, response: { 200: Event } },
      // A person who edits the whole event expects PUT to move it too (issue 31): say how instead.
      unknownFieldHints: {
        location_id:
          'is not taken by PUT, which replaces the title and the date only; an event moves to another location with PATCH and the merge patch {"location_id": <id>} (Content-Type application/merge-patch+json)',
      },
      async handler(request, reply) {
        const id = eventId(request)
        const body = request.body
        requireSameId(body.id, id)
        const changes = { title: body.title, date: toMillis(body.date) }
        return eventBody(reply, await updateEvent(request, id, changes))
      },
    }),
    PATCH: operation({
      ...eventWrite,
      confirmsCredentials: true,
      consumes: [mediaTypes.mergePatch],
      schema: { body: EventPatch, response: { 200: Event } },
      async handler(request, reply) {
        const id = eventId(request)
        const body = request.body
        const changes: EventChanges = {
          ...(body.title !== undefined && { title: body.title }),
          ...(body.date !== undefined && { date: toMillis(body.date) }),
          ...(body.location_id !== undefined && { locationId: body.location_id }),
        }
        return eventBody(reply, await updateEvent(request, id, changes))
      },
    }),
    DELETE: {
      write: true,
      etag: true,
      async handler(request, reply) {
        const id = eventId(request)
        await store.deleteEvent(id, writePrecondition(request))
        reply.code(204)
        return undefined
      },
    },
  })
}

/** A select lists at most this many locations; past it, the forms take a location's id. */
const maxLocationChoices = 200

/** The locations the HTML forms offer, in id order, or undefined when there are too many to list. */
async function locationChoices(store: EventStore): Promise<LocationChoices> {
  const { total, locations } = await store.listLocations({ page: 1, perPage: maxLocationChoices })
  return total > locations.length ? undefined : locations.map(locationChoice)
}

const eventBody = (reply: FastifyReply, event: DomainEvent) =>
  writtenBody(reply, event.version, mediaTypes.event, representEvent(event))

const eventId = (request: FastifyRequest) => pathId(request, 'event')

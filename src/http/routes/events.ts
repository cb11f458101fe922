// /events and /events/<id>: thin handlers — validated input in, one store call, a representation out.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { mediaTypes, relations } from '../../contract/media-types.ts'
import {
  Event,
  EventCollection,
  EventCreate,
  EventPatch,
  EventReplace,
  PagingBody,
} from '../../contract/schemas.ts'
import { dateProblemText, parseDateTime } from '../../domain/dates.ts'
import { DomainError, invalidField } from '../../domain/errors.ts'
import { contentEtag, versionEtag } from '../../domain/etag.ts'
import { resolvePage } from '../../domain/paging.ts'
import type { Event as DomainEvent, EventChanges, Page } from '../../domain/types.ts'
import type { EventStore } from '../../store/event-store.ts'
import { notModified, requirePreconditions, writePrecondition } from '../conditional.ts'
import type { ChangeFeed } from '../event-feed.ts'
import { idempotencyLifetimeMs, parseIdempotencyKey, requestFingerprint } from '../idempotency-key.ts'
import { parseId } from '../ids.ts'
import { pageLinkHeader, paths } from '../links.ts'
import { representCollection, representEvent } from '../represent.ts'
import { type Operation, registerResource } from '../resource.ts'

const bodyTypes = [mediaTypes.event, mediaTypes.json]
const eventTypes = [mediaTypes.event, mediaTypes.json]
/** A write that takes an event body and answers with the event. */
const eventWrite = { write: true, produces: eventTypes, consumes: bodyTypes, bodyRequired: true } as const

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
  const list: Operation = {
    produces: [mediaTypes.events, mediaTypes.json],
    consumes: [mediaTypes.json, mediaTypes.events],
    validationStatus: 400,
    schema: { body: PagingBody, response: { 200: EventCollection } },
    async handler(request, reply) {
      const page = resolvePage(
        request.body as PagingBody | undefined,
        request.query as Record<string, unknown>,
        maxPerPage,
      )
      const { total, events } = await store.listEvents(page)
      // The ETag is per page: each page is a representation of its own.
      const etag = pageEtag(page, total, events)
      const unchanged = notModified(request, reply, etag, 'this page of events')
      reply.header('link', pageLinkHeader(page, total))
      if (unchanged) return reply.code(304).send()
      return reply.type(request.representation ?? mediaTypes.events).send(representCollection(total, events))
    },
  }

  /** The ETag of what GET /events answers without parameters: the default page. */
  const collectionEtag = async () => {
    const page = resolvePage(undefined, {}, maxPerPage)
    const { total, events } = await store.listEvents(page)
    return pageEtag(page, total, events)
  }

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
    POST: {
      ...eventWrite,
      schema: { body: EventCreate, response: { 201: Event } },
      async handler(request, reply) {
        const body = request.body as EventCreate
        const input = { title: body.title, date: toMillis(body.date), locationId: body.location_id }
        // The target of POST is the collection, which always exists: If-Match: * holds and
        // If-None-Match: * fails (RFC 9110 §13.1.1, §13.1.2). Tags are compared with the ETag of
        // the collection's own representation, what GET /events without parameters answers: its
        // default page. That check precedes the insert but is not part of it (unlike PUT's).
        await requirePreconditions(request, collectionEtag, 'the collection of events')
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
        return sendEvent(reply.code(201).header('location', paths.event(event.id)), event)
      },
    },
  })

  registerResource(app, '/events/:id', {
    GET: {
      produces: eventTypes,
      schema: { response: { 200: Event } },
      async handler(request, reply) {
        const id = eventId(request)
        const event = await store.getEvent(id)
        // RFC 9110 §13.2.1: a missing event is a 404 whatever the preconditions say.
        if (!event) throw new DomainError('not_found', `there is no event ${id}`)
        if (notModified(request, reply, versionEtag(event.version), `event ${id}`)) {
          return reply.code(304).send()
        }
        return reply.type(request.representation ?? mediaTypes.event).send(representEvent(event))
      },
    },
    PUT: {
      ...eventWrite,
      schema: { body: EventReplace, response: { 200: Event } },
      async handler(request, reply) {
        const id = eventId(request)
        const body = request.body as EventReplace
        if (body.id !== undefined && body.id !== id) {
          throw invalidField('/id', `must equal the id in the path (${id}) or be left out`)
        }
        const changes = { title: body.title, date: toMillis(body.date) }
        return sendEvent(reply, await store.updateEvent(id, changes, writePrecondition(request)))
      },
    },
    PATCH: {
      ...eventWrite,
      consumes: [mediaTypes.mergePatch],
      schema: { body: EventPatch, response: { 200: Event } },
      async handler(request, reply) {
        const id = eventId(request)
        const body = request.body as EventPatch
        const changes: EventChanges = {
          ...(body.title !== undefined && { title: body.title }),
          ...(body.date !== undefined && { date: toMillis(body.date) }),
          ...(body.location_id !== undefined && { locationId: body.location_id }),
        }
        return sendEvent(reply, await store.updateEvent(id, changes, writePrecondition(request)))
      },
    },
    DELETE: {
      write: true,
      async handler(request, reply) {
        const id = eventId(request)
        await store.deleteEvent(id, writePrecondition(request))
        return reply.code(204).send()
      },
    },
  })
}

function sendEvent(reply: FastifyReply, event: DomainEvent) {
  return reply
    .header('etag', versionEtag(event.version))
    .type(reply.request.representation ?? mediaTypes.event)
    .send(representEvent(event))
}

function pageEtag(page: Page, total: number, events: readonly DomainEvent[]): string {
  return contentEtag(JSON.stringify([total, page, events.map((e) => [e.id, e.version])]))
}

const eventId = (request: FastifyRequest) => parseId((request.params as { id: string }).id, 'event')

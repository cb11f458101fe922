// /events and /events/<id>: thin handlers — validated input in, one store call, a representation out.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { mediaTypes } from '../../contract/media-types.ts'
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
import type { Event as DomainEvent, EventChanges } from '../../domain/types.ts'
import type { EventStore } from '../../store/event-store.ts'
import { notModified, writePrecondition } from '../conditional.ts'
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

export function eventRoutes(app: FastifyInstance, store: EventStore, maxPerPage: number): void {
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
      const etag = contentEtag(JSON.stringify([total, page, events.map((e) => [e.id, e.version])]))
      reply.header('link', pageLinkHeader(page, total))
      if (notModified(request, reply, etag)) return reply.code(304).send()
      return reply.type(mediaTypes.events).send(representCollection(total, events))
    },
  }

  registerResource(app, paths.events, {
    GET: list,
    // The HTTP QUERY method: the same safe read, for intermediaries that drop a GET's body.
    QUERY: list,
    POST: {
      ...eventWrite,
      schema: { body: EventCreate, response: { 201: Event } },
      async handler(request, reply) {
        const body = request.body as EventCreate
        const input = { title: body.title, date: toMillis(body.date), locationId: body.location_id }
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
        if (!event) throw new DomainError('not_found', `there is no event ${id}`)
        if (notModified(request, reply, versionEtag(event.version))) return reply.code(304).send()
        return reply.type(mediaTypes.event).send(representEvent(event))
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
  return reply.header('etag', versionEtag(event.version)).type(mediaTypes.event).send(representEvent(event))
}

const eventId = (request: FastifyRequest) => parseId((request.params as { id: string }).id, 'event')

// /locations and /locations/<id>: the same thin handlers as events (validated input in, one store
// call, a representation out), sharing their paging, preconditions and write answers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { mediaTypes } from '../../contract/media-types.ts'
import {
  Location,
  LocationCollection,
  LocationCreate,
  LocationPatch,
  LocationReplace,
  PagingBody,
} from '../../contract/schemas.ts'
import type { Location as DomainLocation } from '../../domain/types.ts'
import type { EventStore } from '../../store/event-store.ts'
import { requirePreconditions, writePrecondition } from '../conditional.ts'
import { locationCollectionPage, locationPage } from '../html/location-pages.ts'
import { paths } from '../links.ts'
import { pagedCollection } from '../paged-collection.ts'
import { representLocation, representLocationCollection } from '../represent.ts'
import { operation, registerResource } from '../resource.ts'
import { pathId, readOperation, requireSameId, writtenBody } from '../versioned-resource.ts'

const locationTypes = [mediaTypes.location, mediaTypes.json]
/** A write that takes a location body and answers with the location. */
const locationWrite = {
  write: true,
  produces: locationTypes,
  consumes: locationTypes,
  bodyRequired: true,
  etag: true,
} as const

export function locationRoutes(app: FastifyInstance, store: EventStore, maxPerPage: number): void {
  const { list, currentEtag } = pagedCollection({
    path: paths.locations,
    what: 'locations',
    produces: [mediaTypes.locations, mediaTypes.json],
    consumes: [mediaTypes.json, mediaTypes.locations],
    schema: { body: PagingBody, response: { 200: LocationCollection } },
    maxPerPage,
    read: async (page) => {
      const { total, locations } = await store.listLocations(page)
      return { total, items: locations }
    },
    represent: representLocationCollection,
    html: locationCollectionPage,
  })

  registerResource(app, paths.locations, {
    GET: list,
    POST: operation({
      ...locationWrite,
      created: true,
      schema: { body: LocationCreate, response: { 201: Location } },
      async handler(request, reply) {
        const { name, address } = request.body
        // As for POST /events: tags are compared with the collection's default page, before the
        // insert and not as part of it.
        await requirePreconditions(request, currentEtag, 'the collection of locations')
        const location = await store.createLocation({ name, address })
        return locationBody(reply.code(201).header('location', paths.location(location.id)), location)
      },
    }),
  })

  registerResource(app, '/locations/:id', {
    GET: readOperation({
      what: 'location',
      produces: locationTypes,
      schema: { response: { 200: Location } },
      get: (id) => store.getLocation(id),
      represent: representLocation,
      html: locationPage,
    }),
    PUT: operation({
      ...locationWrite,
      schema: { body: LocationReplace, response: { 200: Location } },
      async handler(request, reply) {
        const id = locationId(request)
        const body = request.body
        requireSameId(body.id, id)
        const changes = { name: body.name, address: body.address }
        return locationBody(reply, await store.updateLocation(id, changes, writePrecondition(request)))
      },
    }),
    PATCH: operation({
      ...locationWrite,
      consumes: [mediaTypes.mergePatch],
      schema: { body: LocationPatch, response: { 200: Location } },
      async handler(request, reply) {
        const id = locationId(request)
        const body = request.body
        const changes = {
          ...(body.name !== undefined && { name: body.name }),
          ...(body.address !== undefined && { address: body.address }),
        }
        return locationBody(reply, await store.updateLocation(id, changes, writePrecondition(request)))
      },
    }),
    DELETE: {
      write: true,
      etag: true,
      conflict: 'events still take place at the location',
      async handler(request, reply) {
        // 409 while events take place there (the store counts them, race-free).
        await store.deleteLocation(locationId(request), writePrecondition(request))
        reply.code(204)
        return undefined
      },
    },
  })
}

const locationBody = (reply: FastifyReply, location: DomainLocation) =>
  writtenBody(reply, location.version, mediaTypes.location, representLocation(location))

const locationId = (request: FastifyRequest) => pathId(request, 'location')

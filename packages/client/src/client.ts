// The client of the Event Resource Service: give it the base URL (and credentials to write);
// it finds the collections from the entry point and everything else by links.

import { type ChangeFeedOptions, changeFeed } from './change-feed.ts'
import { mediaTypes, relations } from './contract/media-types.ts'
import type {
  EntryPointRepresentation,
  EventCollectionRepresentation,
  EventCreate,
  EventPatch,
  EventReplace,
  EventRepresentation,
  EventsQueryBody,
  LocationCollectionRepresentation,
  LocationCreate,
  LocationPatch,
  LocationReplace,
  LocationRepresentation,
  PagingBody,
} from './contract/representations.ts'
import { ClientError } from './errors.ts'
import { findLink } from './links.ts'
import { type Camelized, Resource } from './resource.ts'
import { createSession, type Session } from './session.ts'
import type { TransportOptions } from './transport.ts'

export interface ClientOptions extends TransportOptions {
  /** Where the service is: its entry point, `GET <baseUrl>/`. A path prefix is kept. */
  readonly baseUrl: string | URL
}

/** Which events to list: `{ page, perPage, from, to, locationId, q }` (CONTRACT.md §3). */
export type EventQuery = Camelized<EventsQueryBody>
/** Which page of locations: `{ page, perPage }`. */
export type LocationQuery = Camelized<PagingBody>

export class Events extends Resource<
  EventRepresentation,
  EventCollectionRepresentation,
  EventCreate,
  EventReplace,
  EventPatch,
  EventQuery
> {
  /** The change feed, resumed after a dropped connection until stopped (see change-feed.ts). */
  changes(options: ChangeFeedOptions = {}) {
    return changeFeed(this.session, (signal) => this.collectionUrl(signal), options)
  }
}

export class Locations extends Resource<
  LocationRepresentation,
  LocationCollectionRepresentation,
  LocationCreate,
  LocationReplace,
  LocationPatch,
  LocationQuery
> {
  /** The location of an event, by its `/rel/location` link. */
  of(event: Pick<EventRepresentation, 'links' | 'id'>): Promise<LocationRepresentation> {
    const link = findLink(event.links, relations.location)
    if (!link) throw new ClientError(`event ${event.id} has no ${relations.location} link`)
    return this.follow(link.uri)
  }
}

export class EventServiceClient {
  readonly events: Events
  readonly locations: Locations
  readonly #session: Session

  constructor(options: ClientOptions) {
    const { baseUrl, ...transport } = options
    this.#session = createSession(baseUrl, transport)
    this.events = new Events(this.#session, {
      collectionRel: relations.events,
      itemsField: 'events',
      collectionType: mediaTypes.events,
      itemType: mediaTypes.event,
      noun: 'event',
    })
    this.locations = new Locations(this.#session, {
      collectionRel: relations.locations,
      itemsField: 'locations',
      collectionType: mediaTypes.locations,
      itemType: mediaTypes.location,
      noun: 'location',
    })
  }

  /** The base URL every link is resolved against. */
  get baseUrl(): URL {
    return new URL(this.#session.base)
  }

  /** GET /: the links a client starts from. */
  entryPoint(): Promise<EntryPointRepresentation> {
    return this.#session.entryPoint()
  }
}

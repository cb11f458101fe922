// Domain objects become representations here, and only here. Field order is the contract's.
import type {
  EntryPointRepresentation,
  EventCollectionRepresentation,
  EventRepresentation,
  LocationCollectionRepresentation,
  LocationRepresentation,
} from '../contract/schemas.ts'
import { formatDateTime } from '../domain/dates.ts'
import type { Event, Location } from '../domain/types.ts'
import { entryPointLinks, eventLinks, locationLinks } from './links.ts'

export const representEvent = (event: Event): EventRepresentation => ({
  links: eventLinks(event),
  id: event.id,
  title: event.title,
  date: formatDateTime(event.date),
})

export const representCollection = (
  total: number,
  events: readonly Event[],
): EventCollectionRepresentation => ({
  total,
  events: events.map(representEvent),
})

export const representLocation = (location: Location): LocationRepresentation => ({
  links: locationLinks(location),
  id: location.id,
  name: location.name,
  address: location.address,
})

export const representLocationCollection = (
  total: number,
  locations: readonly Location[],
): LocationCollectionRepresentation => ({
  total,
  locations: locations.map(representLocation),
})

export const representEntryPoint = (): EntryPointRepresentation => ({ links: entryPointLinks() })

// Domain objects become representations here, and only here. Field order is the contract's.
import type {
  EntryPointRepresentation,
  EventCollectionRepresentation,
  EventRepresentation,
  LocationCollectionRepresentation,
  LocationRepresentation,
} from '../contract/schemas.ts'
import type { Change } from '../domain/change.ts'
import { formatDateTime } from '../domain/dates.ts'
import type { Event, Location } from '../domain/types.ts'
import { collectionLinks, entryPointLinks, eventLinks, locationLinks } from './links.ts'

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

/**
 * What a change feed message carries: the event as GET would answer right after the change; for a
 * deleted event, its id and links; for a reset, where to read the collection again.
 */
export function representChange(change: Change): object {
  if (change.kind === 'reset') {
    return { links: collectionLinks() }
  }
  if (change.kind === 'deleted') return { links: eventLinks(change.event), id: change.event.id }
  return representEvent(change.event)
}

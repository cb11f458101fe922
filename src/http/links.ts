// Every URI and link relation the service writes is spelled here. URIs are paths relative to the
// base URL (seed §2), so they stay right whatever host or prefix a client used.
import { linkTypes, relations } from '../contract/media-types.ts'
import type { Link } from '../contract/schemas.ts'
import { pageRelations } from '../domain/paging.ts'
import type { Event, Location, Page } from '../domain/types.ts'

export const paths = {
  events: '/events',
  event: (id: number) => `/events/${id}`,
  location: (id: number) => `/locations/${id}`,
  page: (page: number, perPage: number) => `/events?page=${page}&per_page=${perPage}`,
}

export function eventLinks(event: Pick<Event, 'id' | 'locationId'>): Link[] {
  return [
    { uri: paths.event(event.id), rel: `${relations.event} self edit`, type: linkTypes.event },
    { uri: paths.location(event.locationId), rel: relations.location, type: linkTypes.location },
  ]
}

/** Where a client reads the whole collection again (RFC 6573 `collection`): a feed's reset. */
export function collectionLinks(): Link[] {
  return [{ uri: paths.events, rel: 'collection', type: linkTypes.events }]
}

export function locationLinks(location: Pick<Location, 'id'>): Link[] {
  return [{ uri: paths.location(location.id), rel: `${relations.location} self`, type: linkTypes.location }]
}

/** The RFC 8288 `Link` field of a collection page: first, prev, next, last. */
export function pageLinkHeader(page: Page, total: number): string {
  return pageRelations(page, total)
    .map(({ rel, page: n }) => `<${paths.page(n, page.perPage)}>; rel="${rel}"`)
    .join(', ')
}

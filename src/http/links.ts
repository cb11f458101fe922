// Every URI and link relation the service writes is spelled here. URIs are paths relative to the
// base URL (seed §2), so they stay right whatever host or prefix a client used.
import { linkTypes, relations } from '../contract/media-types.ts'
import type { Link } from '../contract/schemas.ts'
import { filterQuery } from '../domain/event-filter.ts'
import { pageRelations } from '../domain/paging.ts'
import type { Event, EventFilter, Location, Page } from '../domain/types.ts'

export const paths = {
  events: '/events',
  event: (id: number) => `/events/${id}`,
  location: (id: number) => `/locations/${id}`,
  /** A page of events; a filter comes first, in filterQuery's order, then page and per_page. */
  page: (page: number, perPage: number, filter: EventFilter = {}) =>
    `/events?${filterQuery(filter)
      .map(([name, value]) => `${name}=${queryValue(value)}&`)
      .join('')}page=${page}&per_page=${perPage}`,
}

/**
 * Percent-encoded as UTF-8 as encodeURIComponent does (`&`, `=`, `+`, `%`, `#`, spaces and all
 * non-ASCII included: a `+` left bare would be read back as a space), except `:`, which RFC 3986
 * §3.4 lets a query carry as it is and every date is full of.
 */
const queryValue = (value: string) => encodeURIComponent(value).replaceAll('%3A', ':')

export function eventLinks(event: Pick<Event, 'id' | 'locationId'>): Link[] {
  return [
    { uri: paths.event(event.id), rel: `${relations.event} self edit`, type: linkTypes.event },
    { uri: paths.location(event.locationId), rel: relations.location, type: linkTypes.location },
  ]
}

export function locationLinks(location: Pick<Location, 'id'>): Link[] {
  return [{ uri: paths.location(location.id), rel: `${relations.location} self`, type: linkTypes.location }]
}

/** The RFC 8288 `Link` field of a collection page: first, prev, next, last, each with the filter. */
export function pageLinkHeader(page: Page, total: number, filter: EventFilter = {}): string {
  return pageRelations(page, total)
    .map(({ rel, page: n }) => `<${paths.page(n, page.perPage, filter)}>; rel="${rel}"`)
    .join(', ')
}

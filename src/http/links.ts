// Every URI and link relation the service writes is spelled here. URIs are paths relative to the
// base URL (seed §2), so they stay right whatever host or prefix a client used.
import { linkTypes, relations } from '../contract/media-types.ts'
import type { Link } from '../contract/schemas.ts'
import { pageRelations } from '../domain/paging.ts'
import type { Event, Location, Page } from '../domain/types.ts'

/** Query parameters as name and unencoded value, in the order they are written. */
export type QueryParameters = readonly (readonly [string, string])[]

export const paths = {
  entryPoint: '/',
  events: '/events',
  event: (id: number) => `/events/${id}`,
  eventsAt: (locationId: number) => `/events?location_id=${locationId}`,
  locations: '/locations',
  location: (id: number) => `/locations/${id}`,
  /** The OpenAPI document (RFC 8631 service-desc) and its reference page (service-doc). */
  openApi: '/openapi.json',
  docs: '/docs',
  /**
   * A page of a collection (`/events` unless another is named). The parameters that choose what
   * it shows (a filter) come first, in the order given, then page and per_page.
   */
  page: (page: number, perPage: number, collection = '/events', parameters: QueryParameters = []) =>
    `${collection}?${parameters
      .map(([name, value]) => `${name}=${queryValue(value)}&`)
      .join('')}page=${page}&per_page=${perPage}`,
}

/**
 * Percent-encoded as UTF-8 as encodeURIComponent does (`&`, `=`, `+`, `%`, `#`, spaces and all
 * non-ASCII included: a `+` left bare would be read back as a space), except `:`, which RFC 3986
 * §3.4 lets a query carry as it is and every date is full of.
 */
const queryValue = (value: string) => encodeURIComponent(value).replaceAll('%3A', ':')

// Made once: a template literal in the function below made the same string anew for every event.
const eventSelf = `${relations.event} self edit`
const locationSelf = `${relations.location} self edit`

export function eventLinks(event: Pick<Event, 'id' | 'locationId'>): Link[] {
  return [
    { uri: paths.event(event.id), rel: eventSelf, type: linkTypes.event },
    { uri: paths.location(event.locationId), rel: relations.location, type: linkTypes.location },
  ]
}

/** Where a client reads the whole collection again (RFC 6573 `collection`): a feed's reset. */
export function collectionLinks(): Link[] {
  return [{ uri: paths.events, rel: 'collection', type: linkTypes.events }]
}

export function locationLinks(location: Pick<Location, 'id'>): Link[] {
  return [
    { uri: paths.location(location.id), rel: locationSelf, type: linkTypes.location },
    { uri: paths.eventsAt(location.id), rel: relations.events, type: linkTypes.events },
  ]
}

/** What the entry point links to: every resource a client can reach starts here. */
export function entryPointLinks(): Link[] {
  return [
    { uri: paths.events, rel: relations.events, type: linkTypes.events },
    { uri: paths.locations, rel: relations.locations, type: linkTypes.locations },
    // RFC 8631: the description of the service for machines, and its documentation for people.
    { uri: paths.openApi, rel: 'service-desc', type: linkTypes.openApi },
    { uri: paths.docs, rel: 'service-doc', type: 'text/html' },
  ]
}

/** Links as an RFC 8288 `Link` field. */
export function linkHeader(links: readonly Pick<Link, 'uri' | 'rel'>[]): string {
  return links.map(({ uri, rel }) => `<${uri}>; rel="${rel}"`).join(', ')
}

/** The RFC 8288 `Link` field of a collection page: first, prev, next, last, each with the parameters. */
export function pageLinkHeader(
  page: Page,
  total: number,
  collection = paths.events,
  parameters: QueryParameters = [],
): string {
  return linkHeader(
    pageRelations(page, total).map(({ rel, page: n }) => ({
      uri: paths.page(n, page.perPage, collection, parameters),
      rel,
    })),
  )
}

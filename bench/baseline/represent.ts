// The bytes the baseline answers with: the same representations, links, ETags and Link header as
// the service (CONTRACT.md §2–3), written out by hand so that nothing here depends on src/.
// bench/verify.ts compares them with the service's before anything is measured.
import { createHash } from 'node:crypto'
import type { BaselineFilter } from './queries.ts'

export interface EventRow {
  readonly id: number
  readonly title: string
  /** Epoch milliseconds, UTC. */
  readonly startsAt: number
  readonly locationId: number
  readonly version: number
}

export const eventType = 'application/vnd.service.event+json'
export const eventsType = 'application/vnd.service.events+json'

/** RFC 3339 in UTC with `Z`, milliseconds only when they are not zero (CONTRACT.md §2). */
export function formatDate(epochMillis: number): string {
  const iso = new Date(epochMillis).toISOString()
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso
}

export function eventObject(row: EventRow) {
  return {
    links: [
      { uri: `/events/${row.id}`, rel: '/rel/event self edit', type: 'application/vnd.service.event' },
      { uri: `/locations/${row.locationId}`, rel: '/rel/location', type: 'application/vnd.service.location' },
    ],
    id: row.id,
    title: row.title,
    date: formatDate(row.startsAt),
  }
}

export const eventJson = (row: EventRow): string => JSON.stringify(eventObject(row))

export const collectionJson = (total: number, rows: readonly EventRow[]): string =>
  JSON.stringify({ total, events: rows.map(eventObject) })

export const versionEtag = (version: number): string => `"v${version}"`

/**
 * A page's ETag is made from its total, paging, filter (when there is one) and the ids and
 * versions on it, as the service makes it.
 */
export function pageEtag(
  page: number,
  perPage: number,
  total: number,
  rows: readonly EventRow[],
  filter?: BaselineFilter,
): string {
  const shown = rows.map((r) => [r.id, r.version])
  const identity = JSON.stringify(
    filter
      ? [total, { page, perPage }, Object.fromEntries(filterParameters(filter)), shown]
      : [total, { page, perPage }, shown],
  )
  return `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`
}

/** The filter as query parameters, unencoded, in the service's order: from, to, location_id, q. */
function filterParameters(filter: BaselineFilter): [string, string][] {
  if ('q' in filter) return [['q', filter.q]]
  if ('locationId' in filter) return [['location_id', String(filter.locationId)]]
  return [
    ['from', formatDate(filter.from)],
    ['to', formatDate(filter.to)],
  ]
}

/** The filter in a link's query string, before the paging, percent-encoded. */
function filterQuery(filter: BaselineFilter | undefined): string {
  if (filter === undefined) return ''
  const encode = (value: string) => encodeURIComponent(value).replaceAll('%3A', ':')
  return filterParameters(filter)
    .map(([name, value]) => `${name}=${encode(value)}&`)
    .join('')
}

/** RFC 8288 paging links: first, prev, next, last, each with the filter. */
export function pageLinks(page: number, perPage: number, total: number, filter?: BaselineFilter): string {
  const last = Math.max(1, Math.ceil(total / perPage))
  const query = filterQuery(filter)
  const link = (n: number, rel: string) => `</events?${query}page=${n}&per_page=${perPage}>; rel="${rel}"`
  const links = [link(1, 'first')]
  if (page > 1) links.push(link(Math.min(page - 1, last), 'prev'))
  if (page < last) links.push(link(page + 1, 'next'))
  links.push(link(last, 'last'))
  return links.join(', ')
}

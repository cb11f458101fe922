// Finding events (CONTRACT.md §3): `from` (inclusive) and `to` (exclusive) RFC 3339 instants,
// `location_id` and `q`, each in the JSON body, the query string, or both (then they must agree).
import { dateProblemText, formatDateTime, parseDateTime } from './dates.ts'
import { DomainError } from './errors.ts'
import { agreeing, plainInteger } from './parameters.ts'
import type { EventFilter } from './types.ts'

/** The filter's parameters, in the order the `Link` header writes them (before page, per_page). */
export const filterParameters = ['from', 'to', 'location_id', 'q'] as const
type FilterName = (typeof filterParameters)[number]

export type FilterInput = { readonly [K in FilterName]?: unknown }

export const maxQueryLength = 100

/**
 * How titles and `q` are compared: both folded with JavaScript's toLowerCase (full Unicode case
 * mapping: `İ` becomes `i̇`, two code points), computed here and never by a database, whose
 * lower() follows its own locale and so would differ between stores.
 */
export const foldTitle = (text: string): string => text.toLowerCase()

/** The filter of a collection request; every parameter is optional. */
export function resolveFilter(body: FilterInput | undefined, query: Record<string, unknown>): EventFilter {
  const pick = <T>(
    name: FilterName,
    parse: (value: unknown) => T,
    parseText: (text: string) => T = parse,
  ) => {
    const text = query[name]
    // A repeated parameter arrives as an array: which one was meant is unknowable.
    if (text !== undefined && typeof text !== 'string') throw badFilter(`${name} may be given only once`)
    const fromBody = body?.[name] === undefined ? undefined : parse(body[name])
    return agreeing(name, fromBody, text === undefined ? undefined : parseText(text), badFilter)
  }
  const from = pick('from', instant('from'))
  const to = pick('to', instant('to'))
  const locationId = pick('location_id', positiveInteger, (text) => positiveInteger(plainInteger(text)))
  const q = pick('q', searchText)
  if (from !== undefined && to !== undefined && from >= to) {
    throw badFilter(`from (${formatDateTime(from)}) must be earlier than to (${formatDateTime(to)})`)
  }
  return {
    ...(from !== undefined && { from }),
    ...(to !== undefined && { to }),
    ...(locationId !== undefined && { locationId }),
    ...(q !== undefined && { q }),
  }
}

/** Whether the filter leaves any event out: without one, the collection is the whole table. */
export const isFiltered = (filter: EventFilter): boolean =>
  filter.from !== undefined ||
  filter.to !== undefined ||
  filter.locationId !== undefined ||
  filter.q !== undefined

/**
 * The filter as query parameters, in `filterParameters` order, instants normalised to UTC as
 * `date` is; unencoded. The same filter always gives the same list, so links are stable.
 */
export function filterQuery(filter: EventFilter): [FilterName, string][] {
  const entries: [FilterName, string | undefined][] = [
    ['from', filter.from === undefined ? undefined : formatDateTime(filter.from)],
    ['to', filter.to === undefined ? undefined : formatDateTime(filter.to)],
    ['location_id', filter.locationId === undefined ? undefined : String(filter.locationId)],
    ['q', filter.q],
  ]
  return entries.filter((entry): entry is [FilterName, string] => entry[1] !== undefined)
}

/** Dates are compared as instants: `…T20:00:00+01:00` in the body agrees with `…T19:00:00Z`. */
const instant =
  (name: 'from' | 'to') =>
  (value: unknown): number => {
    const parsed = typeof value === 'string' ? parseDateTime(value) : undefined
    if (parsed?.ok) return parsed.value
    throw badFilter(`${name} ${dateProblemText[parsed?.problem ?? 'format']}`)
  }

function positiveInteger(value: unknown): number {
  if (Number.isSafeInteger(value) && (value as number) >= 1) return value as number
  throw badFilter('location_id must be a positive integer written plainly, such as 3')
}

function searchText(value: unknown): string {
  if (typeof value !== 'string') throw badFilter('q must be a string')
  // Characters as JSON Schema counts them (code points), so the body and the query string agree.
  const length = [...value].length
  if (length < 1 || length > maxQueryLength) {
    throw badFilter(`q must be 1–${maxQueryLength} characters long, not ${length}`)
  }
  // No title can contain U+0000 (writes refuse it), and PostgreSQL cannot even be asked about it.
  if (value.includes('\u0000')) throw badFilter('q must not contain the character U+0000')
  return value
}

const badFilter = (message: string) => new DomainError('bad_filter', message)

// What the baseline asks of its database: a few prepared statements, nothing else.
import type { EventRow } from './represent.ts'

/** The filters the benchmark sends, one at a time (bench/scenarios.ts). */
export type BaselineFilter =
  | { readonly from: number; readonly to: number }
  | { readonly locationId: number }
  | { readonly q: string }

export interface BaselineQueries {
  getEvent(id: number): Promise<EventRow | undefined>
  /** One page in date-then-id order and the total, read in one statement (one snapshot). */
  page(limit: number, offset: number): Promise<{ total: number; rows: EventRow[] }>
  /** The same for the events a filter finds, the total counted with the page's WHERE. */
  filteredPage(
    filter: BaselineFilter,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: EventRow[] }>
  updateEvent(id: number, title: string, startsAt: number): Promise<EventRow | undefined>
  insertEvent(title: string, startsAt: number, locationId: number): Promise<EventRow>
  close(): Promise<void>
}

// The same statement shapes the service's store uses, so both ask the database the same questions.
export const sql = {
  get: 'select id, title, starts_at, location_id, version from events where id = $1',
  page:
    'select id, title, starts_at, location_id, version, (select count(*) from events) as total ' +
    'from events order by starts_at, id limit $1 offset $2',
  count: 'select count(*) as total from events',
  // The lower-cased title too: the least a service that finds events by `q` must write, and what
  // keeps the search indexes (SQLite's FTS5 trigram table, PostgreSQL's pg_trgm) in step.
  update:
    'update events set title = $1, title_folded = $2, starts_at = $3, version = version + 1 where id = $4 ' +
    'returning id, title, starts_at, location_id, version',
  insert:
    'insert into events (title, title_folded, starts_at, location_id) values ($1, $2, $3, $4) ' +
    'returning id, title, starts_at, location_id, version',
}

/**
 * A filtered page and its count for a WHERE written with `$first`, `$first + 1`, … (`arity`
 * values), given twice: in the total's subquery and in the page's own WHERE.
 */
export function filteredSql(condition: (first: number) => string, arity: number) {
  return {
    page:
      `select id, title, starts_at, location_id, version, (select count(*) from events where ${condition(1)}) as total ` +
      `from events where ${condition(1 + arity)} order by starts_at, id limit $${1 + 2 * arity} offset $${2 + 2 * arity}`,
    count: `select count(*) as total from events where ${condition(1)}`,
  }
}

/** The WHERE of the filters that every dialect writes alike. */
export const filterConditions = {
  dates: (n: number) => `starts_at >= $${n} and starts_at < $${n + 1}`,
  location: (n: number) => `location_id = $${n}`,
}

/** Which statement a filter takes and its values, once: the dialect adds the q's own. */
export function filterValues(filter: BaselineFilter): ['dates' | 'location', unknown[]] | ['q', string] {
  if ('q' in filter) return ['q', filter.q.toLowerCase()]
  return 'locationId' in filter ? ['location', [filter.locationId]] : ['dates', [filter.from, filter.to]]
}

export interface Row {
  id: number | string
  title: string
  starts_at: number | string
  location_id: number | string
  version: number | string
  total?: number | string
}

export const toRow = (r: Row): EventRow => ({
  id: Number(r.id),
  title: r.title,
  startsAt: Number(r.starts_at),
  locationId: Number(r.location_id),
  version: Number(r.version),
})

// A page of the events a filter finds, and how many it finds, in one statement: the count and the
// page are two subqueries with the same WHERE, joined so that a row comes back even past the last
// page (then without an event, only the total). One statement is one snapshot, so page and total
// always agree, as they do unfiltered (event-count.ts, whose counters cannot count a filter).
//
// Each condition is an index range where one exists (docs/architecture.md, "Finding events"):
// dates on events_by_date (starts_at, id), a location on events_by_location_date (location_id,
// starts_at, id), which also serves a date range at that location, and `q` on the dialect's
// substring index over title_folded, where it has one.
import type { CompiledQuery, Kysely, SelectQueryBuilder } from 'kysely'
import { foldTitle } from '../domain/event-filter.ts'
import { offsetOf } from '../domain/paging.ts'
import type { Event, EventFilter, Page } from '../domain/types.ts'
import { dateRangePageQuery, isDateRangeOnly } from './date-range-page.ts'
import type { SqlFlavour } from './flavour.ts'
import { toEvent } from './rows.ts'
import type { Database } from './schema.ts'

type EventRow = Parameters<typeof toEvent>[0]

// biome-ignore lint/suspicious/noExplicitAny: any selection of events takes the same WHERE
type EventsQuery = SelectQueryBuilder<Database, 'events', any>

function matching<Q extends EventsQuery>(query: Q, filter: EventFilter, flavour: SqlFlavour): Q {
  let q: EventsQuery = query
  if (filter.from !== undefined) q = q.where('starts_at', '>=', filter.from)
  if (filter.to !== undefined) q = q.where('starts_at', '<', filter.to)
  if (filter.locationId !== undefined) q = q.where('location_id', '=', filter.locationId)
  if (filter.q !== undefined) q = q.where(flavour.contains('events', 'title_folded', foldTitle(filter.q)))
  return q as Q
}

/** The statement, apart from running it, so that its plan can be looked at (docs/architecture.md). */
export function filteredPageQuery(
  db: Kysely<Database>,
  flavour: SqlFlavour,
  page: Page,
  filter: EventFilter,
) {
  const count = matching(
    db.selectFrom('events').select((eb) => eb.fn.countAll().as('total')),
    filter,
    flavour,
  )
  const rows = matching(
    db
      .selectFrom('events')
      .select(['id', 'title', 'starts_at', 'location_id', 'version'])
      .orderBy('starts_at')
      .orderBy('id')
      .limit(page.perPage)
      .offset(offsetOf(page)),
    filter,
    flavour,
  )
  return (
    db
      .selectFrom(count.as('t'))
      .leftJoin(rows.as('p'), (join) => join.onTrue())
      .select(['t.total', 'p.id', 'p.title', 'p.starts_at', 'p.location_id', 'p.version'])
      // A join keeps no order of its own.
      .orderBy('p.starts_at')
      .orderBy('p.id')
  )
}

/** Runs the statement somewhere other than Kysely's connection (a reader thread off the event loop). */
export type ReadElsewhere = <R>(query: CompiledQuery<R>) => Promise<R[]>

export async function filteredPage(
  db: Kysely<Database>,
  flavour: SqlFlavour,
  page: Page,
  filter: EventFilter,
  readElsewhere?: ReadElsewhere,
): Promise<{ total: number; events: Event[] }> {
  // A date range alone is counted and entered from the date buckets (date-range-page.ts).
  const query = isDateRangeOnly(filter)
    ? dateRangePageQuery(db, page, filter)
    : filteredPageQuery(db, flavour, page, filter).compile()
  const result = readElsewhere ? await readElsewhere(query) : (await db.executeQuery(query)).rows
  const total = Number(result[0]?.total ?? 0)
  // Past the last page the one row carries the total and no event.
  const events = result.filter((row) => row.id !== null).map((row) => toEvent(row as EventRow))
  return { total, events }
}

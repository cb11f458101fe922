// A page of the events in a date range (`from`, `to`, or both, and no other condition), and how
// many there are, from the date buckets (event-buckets.ts) instead of counting and skipping every
// event of the range. Without them a wide range's count walks the whole date index and a deep
// page steps over every event before it: page 40,000 of `from=2000-01-01` took ~0.4 s at a
// million events on PostgreSQL, holding a connection meanwhile.
//
// The buckets wholly inside the range are summed as they are; the range's first and last buckets
// are partial, so their events in the range are counted exactly over events_by_date (at most two
// buckets, ~3 days each). Running sums in bucket order find the bucket the page starts in, and
// OFFSET skips only the rest of it. One statement: the total and the page come from one snapshot,
// and the answer is exactly what filtered-page.ts's statement gives (same total, order and rows).
import { type Kysely, sql } from 'kysely'
import { offsetOf } from '../domain/paging.ts'
import type { EventFilter, Page } from '../domain/types.ts'
import { bucketBits } from './event-buckets.ts'
import type { Database } from './schema.ts'

/** Whether the filter is a date range alone: the case the buckets can count. */
export const isDateRangeOnly = (filter: EventFilter): boolean =>
  (filter.from !== undefined || filter.to !== undefined) &&
  filter.locationId === undefined &&
  filter.q === undefined

// An open end stands for the earliest or latest instant JavaScript dates have: every stored date
// lies between them.
const earliest = -8.64e15
const latest = 8.64e15 + 1
const bucketSize = 2 ** bucketBits
const bucketOf = (at: number) => Math.floor(at / bucketSize)

/** The statement's rows: the total on every row, and the page's event columns (null past the last page). */
export function dateRangePageQuery(db: Kysely<Database>, page: Page, filter: EventFilter) {
  const from = filter.from ?? earliest
  const to = filter.to ?? latest
  const first = bucketOf(from)
  const last = bucketOf(to - 1)
  const offset = offsetOf(page)
  const int = (value: number) => sql`cast(${value} as bigint)`
  const lastEdge =
    last > first
      ? sql`union all select ${int(last)}, count(*) from events
          where starts_at >= ${last * bucketSize} and starts_at < ${to}`
      : sql``
  return sql<{
    total: number
    id: number | null
    title: string | null
    starts_at: number | null
    location_id: number | null
    version: number | null
  }>`
    with buckets as (
      select bucket, sum(count) as n from event_buckets
        where bucket > ${first} and bucket < ${last} group by bucket
      union all select ${int(first)}, count(*) from events
        where starts_at >= ${from} and starts_at < ${Math.min(to, (first + 1) * bucketSize)}
      ${lastEdge}
    ),
    running as (select bucket, sum(n) over (order by bucket) - n as before from buckets),
    start as (select bucket, before from running where before <= ${offset} order by bucket desc limit 1),
    counted as (select coalesce(sum(n), 0) as total from buckets)
    select t.total, p.id, p.title, p.starts_at, p.location_id, p.version
    from counted t left join (
      select id, title, starts_at, location_id, version from events
      where starts_at >= ${from} and starts_at < ${to}
        and starts_at >= coalesce((select bucket from start), ${int(first)}) * ${bucketSize}
      order by starts_at, id
      limit ${page.perPage} offset ${offset} - coalesce((select before from start), 0)
    ) p on true
    order by p.starts_at, p.id`.compile(db)
}

// Deep pages without walking the whole order. OFFSET steps over every row before the page: page
// 40,000 of 1,000,000 events took ~100–160 ms on PostgreSQL even as a deferred join over the
// covering (starts_at, id) index, and blocked SQLite's thread for tens of milliseconds.
//
// So the number of events is also kept per date bucket (2^28 ms, about 3.1 days, of starts_at),
// in table `event_buckets`, by triggers in the same transaction as every write to `events`. A deep
// page sums the buckets in date order to find the one its first event falls in, then skips only
// the rest of that bucket over the index: ~6 ms for page 40,000 of 1M on PostgreSQL, measured.
// The cost grows with the number of non-empty buckets (one per ~3 days of the calendar in use)
// and the events in one bucket, not with the page number. Events crowded into one bucket (a
// million on one day) fall back to what OFFSET costs.
//
// Triggers, not application code, keep the counts, so that no write path can forget them (the
// CLI's import, a PATCH that moves a date, a delete). On PostgreSQL a bucket's count is spread
// over 4 rows picked at random, as the total is (event-count.ts): concurrent writes
// to one week then rarely wait for each other's commit on one row. SQLite serialises writers
// anyway and keeps one row per bucket.
import { type Kysely, sql } from 'kysely'
import { compileOnce } from './compiled.ts'
import { eventTotal } from './event-count.ts'
import type { Database } from './schema.ts'

/** A bucket holds the events whose starts_at >> bucketBits is its number (floor of ms / 2^28). */
export const bucketBits = 28

/** Below this offset OFFSET is always the cheaper way. */
export const deepPageOffset = 2_000

/**
 * Whether a page at `offset` is cheaper found from the buckets than by OFFSET. Adding up the
 * buckets costs in proportion to their rows, OFFSET to the rows it steps over; `rowsPerBucketRow`
 * is how many rows the dialect's OFFSET steps over in the time the buckets take per row (measured
 * at 1M events: ~30 on SQLite, whose OFFSET is cheap; ~1 on PostgreSQL). So 10,000 events spread
 * over 19 years (2,200 buckets of 4 events) page by OFFSET, and a million of them by buckets from
 * about page 3,000 on SQLite.
 */
export function prefersBuckets(offset: number, bucketRows: number, rowsPerBucketRow: number): boolean {
  return offset >= Math.max(deepPageOffset, bucketRows * rowsPerBucketRow)
}

/**
 * The number of rows of `event_buckets`, known roughly: it changes slowly, only the choice of
 * plan depends on it (both plans give the same page), and counting it per request would cost
 * what the buckets save. Counted on the first deep request, then again in the background at most
 * every `maxAgeMs`.
 */
export class BucketRowsEstimate {
  #rows: number | undefined
  #countedAt = 0
  #counting: Promise<number> | undefined
  constructor(
    private readonly count: () => Promise<number>,
    private readonly maxAgeMs = 10_000,
  ) {}

  async rows(): Promise<number> {
    const stale = Date.now() - this.#countedAt >= this.maxAgeMs
    if (stale && !this.#counting) {
      this.#counting = this.count()
        .then((rows) => {
          this.#rows = rows
          this.#countedAt = Date.now()
          return rows
        })
        .finally(() => {
          this.#counting = undefined
        })
      // A failed background count keeps the old figure; the next request tries again.
      this.#counting.catch(() => {})
    }
    return this.#rows ?? (await (this.#counting as Promise<number>))
  }
}

// The triggers that keep the counts are written in the migrations (0005, then 0009, which also
// keeps the total there: event-count.ts), frozen as text: a change to them is a new migration.

/**
 * A page of events at `offset` (given twice: parameters 1 and 3) of `limit` (parameter 2), each
 * row carrying the total, in one statement: the bucket to start from, the events of the page
 * and the total all come from one snapshot. With no event there is no bucket to start from: the
 * offset falls back to the page's own (SQLite refuses a NULL OFFSET: a deep page of an empty
 * collection was a 500).
 */
export function deepPage<Row>(db: Kysely<Database>, columns: readonly string[]) {
  const bits = sql.lit(bucketBits)
  const query = sql<Row>`
    with buckets as (select bucket, sum(count) as n from event_buckets group by bucket),
    running as (select bucket, sum(n) over (order by bucket) - n as before from buckets),
    start as (
      select bucket, before from running where before <= ${-1} order by bucket desc limit 1
    )
    select ${sql.join(columns.map((c) => sql.ref(c)))}, ${eventTotal()} as total
    from events
    where starts_at >= (select bucket from start) << ${bits}
    order by starts_at, id
    limit ${-2} offset ${-3} - coalesce((select before from start), 0)`
  return compileOnce({ compile: () => query.compile(db) }, [-1, -2, -3])
}

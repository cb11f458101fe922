// The number of events, so that `total` is exact without counting a million rows per page
// (count(*) at 1M rows: ~0.4 ms on SQLite, ~60 ms on PostgreSQL).
//
// One source for counts (docs/architecture.md, "Counting events"): the triggers on `events` keep
// both the total, in the 16 shards of table `counters` (name 'events'), and the per-date-bucket
// counts of `event_buckets` (event-buckets.ts), in the same statement as the write (migration
// 0009). No application code writes a count, so no write path can forget one, and the lock order
// has one home, the trigger: the total's shard first, then the buckets in ascending order. An
// import on PostgreSQL defers its counts and adds them at its end in that same order
// (import-counts.ts); `ers recount` repairs counts from the rows (recount.ts).
//
// The total is the sum of the shards. A shard may go below zero; the sum cannot. Reads see the
// counter rows in the same snapshot as the events (one statement, or one transaction), so a page
// and its total always agree.
import { sql } from 'kysely'

export const eventCounter = 'events'

/**
 * The number of events, as an SQL expression for a select list, read from the counter. A filtered
 * collection counts its matching rows instead, with the same WHERE as the page, still in the
 * page's statement (filtered-page.ts).
 */
export const eventTotal = () =>
  sql<number>`(select coalesce(sum(value), 0) from counters where name = ${sql.lit(eventCounter)})`

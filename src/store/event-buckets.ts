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
// over `postgresShards` rows picked at random, as the total is (event-count.ts): concurrent writes
// to one week then rarely wait for each other's commit on one row. SQLite serialises writers
// anyway and keeps one row per bucket.
import { type Kysely, sql } from 'kysely'
import { compileOnce } from './compiled.ts'
import { eventTotal } from './event-count.ts'
import type { Database } from './schema.ts'

/** A bucket holds the events whose starts_at >> bucketBits is its number (floor of ms / 2^28). */
export const bucketBits = 28
const postgresShards = 4

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

const bucketOf = (row: 'new' | 'old' | 'new_rows' | 'old_rows') => `${row}.starts_at >> ${bucketBits}`

export const sqliteBucketTriggers = [
  `create trigger events_bucket_insert after insert on events begin
     insert into event_buckets (bucket, shard, count) values (${bucketOf('new')}, 0, 1)
       on conflict (bucket, shard) do update set count = count + 1;
   end`,
  `create trigger events_bucket_delete after delete on events begin
     update event_buckets set count = count - 1 where bucket = ${bucketOf('old')} and shard = 0;
   end`,
  `create trigger events_bucket_move after update of starts_at on events
     when ${bucketOf('old')} <> ${bucketOf('new')} begin
     update event_buckets set count = count - 1 where bucket = ${bucketOf('old')} and shard = 0;
     insert into event_buckets (bucket, shard, count) values (${bucketOf('new')}, 0, 1)
       on conflict (bucket, shard) do update set count = count + 1;
   end`,
]

// Inserts and deletes: statement triggers with transition tables, one upsert per statement however
// many rows it wrote (the importer inserts thousands per statement). A date change: a row trigger
// whose WHEN is checked without entering PL/pgSQL, so an update that keeps the bucket costs nothing
// (measured per single-row UPDATE: +80 µs for a statement trigger on every update, +0 here when
// the bucket stays, +100 µs when it moves). Buckets are always locked in ascending order, so two
// transactions never wait on each other's buckets in a cycle.
const shard = `floor(random() * ${postgresShards})::integer`
const upsert = `on conflict (bucket, shard) do update set count = event_buckets.count + excluded.count;`
const postgresApply = (rows: 'new_rows' | 'old_rows', delta: 1 | -1) => `
  insert into event_buckets (bucket, shard, count)
    select ${bucketOf(rows)}, case when many then 0 else ${shard} end, ${delta} * count(*) from ${rows}
    group by ${bucketOf(rows)} order by ${bucketOf(rows)}
  ${upsert}`

export const postgresBucketTriggers = [
  // A statement of many rows is an import, and imports queue for one lock (KyselyStore): it keeps
  // to shard 0, so a large collection has about one row per bucket for a deep page to add up.
  `create function events_bucket_count() returns trigger language plpgsql as $$
   declare
     many boolean;
   begin
     if tg_op = 'INSERT' then
       many := exists (select from new_rows offset 1);
       ${postgresApply('new_rows', 1)}
     else
       many := false;
       ${postgresApply('old_rows', -1)}
     end if;
     return null;
   end $$`,
  `create function events_bucket_move() returns trigger language plpgsql as $$
   declare
     moved_up boolean := ${bucketOf('old')} < ${bucketOf('new')};
   begin
     insert into event_buckets (bucket, shard, count) values
       (least(${bucketOf('old')}, ${bucketOf('new')}), ${shard}, case when moved_up then -1 else 1 end),
       (greatest(${bucketOf('old')}, ${bucketOf('new')}), ${shard}, case when moved_up then 1 else -1 end)
     ${upsert}
     return null;
   end $$`,
  `create trigger events_bucket_insert after insert on events referencing new table as new_rows
     for each statement execute function events_bucket_count()`,
  `create trigger events_bucket_delete after delete on events referencing old table as old_rows
     for each statement execute function events_bucket_count()`,
  `create trigger events_bucket_move after update of starts_at on events for each row
     when (${bucketOf('old')} <> ${bucketOf('new')}) execute function events_bucket_move()`,
]

/** Creates the table and counts the events already stored (inside the migration's transaction). */
export async function createEventBuckets(db: Kysely<unknown>, triggers: readonly string[]) {
  await db.schema
    .createTable('event_buckets')
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_buckets_pk', ['bucket', 'shard'])
    .execute()
  await sql`insert into event_buckets (bucket, shard, count)
    select starts_at >> ${sql.lit(bucketBits)}, 0, count(*) from events
    group by starts_at >> ${sql.lit(bucketBits)}`.execute(db)
  for (const trigger of triggers) await sql.raw(trigger).execute(db)
}

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

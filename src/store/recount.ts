// `ers recount`: counts the events from their rows and compares with what the triggers kept
// (event-count.ts): the total's shards in `counters`, the per-date-bucket counts in
// `event_buckets`. Where they differ it says so and rewrites both, in the same transaction as the
// count. Counts drift only when something wrote around the triggers: an instance older than
// migration 0009 still adding to the total itself, a hand-edited table, a restored partial dump.
import { sql } from 'kysely'
import { bucketBits } from './event-buckets.ts'
import { eventCounter } from './event-count.ts'
import type { Executor } from './executor.ts'

export interface CountDifference {
  /** `total`, or the date bucket's number (starts_at >> 28). */
  readonly what: 'total' | number
  readonly kept: number
  readonly counted: number
}

export interface RecountReport {
  /** The number of events, counted. */
  readonly events: number
  /** Empty when the kept counts were right; then nothing was written. */
  readonly differences: readonly CountDifference[]
}

/**
 * Counts and repairs inside `trx`, a write transaction. Where writers run side by side
 * (`rowLocks`: PostgreSQL), it first locks both count tables, `counters` then `event_buckets`,
 * the order every write's trigger takes their rows in: writes that change a count wait for it,
 * and each one that committed before is in the count. Readers are not held up.
 */
export async function recount(trx: Executor, rowLocks: boolean): Promise<RecountReport> {
  if (rowLocks) await sql`lock table counters, event_buckets in exclusive mode`.execute(trx)
  const bits = sql.lit(bucketBits)
  const { rows: counted } = await sql<{ bucket: number | string; n: number | string }>`
    select starts_at >> ${bits} as bucket, count(*) as n from events group by starts_at >> ${bits}`.execute(
    trx,
  )
  const { rows: kept } = await sql<{ bucket: number | string; n: number | string }>`
    select bucket, sum(count) as n from event_buckets group by bucket`.execute(trx)
  const { rows: totals } = await sql<{ n: number | string | null }>`
    select sum(value) as n from counters where name = ${eventCounter}`.execute(trx)
  const countedByBucket = new Map(counted.map((r) => [Number(r.bucket), Number(r.n)]))
  const keptByBucket = new Map(kept.map((r) => [Number(r.bucket), Number(r.n)]))
  const events = [...countedByBucket.values()].reduce((a, b) => a + b, 0)
  const differences: CountDifference[] = []
  const keptTotal = Number(totals[0]?.n ?? 0)
  if (keptTotal !== events) differences.push({ what: 'total', kept: keptTotal, counted: events })
  const buckets = [...new Set([...countedByBucket.keys(), ...keptByBucket.keys()])].sort((a, b) => a - b)
  for (const bucket of buckets) {
    const k = keptByBucket.get(bucket) ?? 0
    const c = countedByBucket.get(bucket) ?? 0
    if (k !== c) differences.push({ what: bucket, kept: k, counted: c })
  }
  if (differences.length > 0) await rewrite(trx, events)
  return { events, differences }
}

/** The counts as a new database would hold them: the total in shard 0, one row per bucket. */
async function rewrite(trx: Executor, events: number): Promise<void> {
  await sql`update counters set value = case when shard = 0 then cast(${events} as bigint) else 0 end
    where name = ${eventCounter}`.execute(trx)
  await sql`delete from event_buckets`.execute(trx)
  const bits = sql.lit(bucketBits)
  await sql`insert into event_buckets (bucket, shard, count)
    select starts_at >> ${bits}, 0, count(*) from events group by starts_at >> ${bits}`.execute(trx)
}

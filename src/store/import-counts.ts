// An import on PostgreSQL counts its events itself instead of in the triggers (event-count.ts),
// and adds the counts once, at its end: its statements then take no counter or bucket row as they
// go, so live writes beside a long import do not queue behind it (issue: a 1M-event import held a
// counter shard and bucket rows for 81 s, and live writes timed out). The counts go in the same
// order every live write's trigger takes them: the total's shard first, then the buckets in
// ascending order, so the two never wait on each other in a cycle.
import { sql } from 'kysely'
import { bucketBits } from './event-buckets.ts'
import { eventCounter } from './event-count.ts'
import type { Executor } from './executor.ts'

/** The events an import has inserted, per date bucket (starts_at >> bucketBits, as the triggers). */
export class BucketTally {
  readonly #counts = new Map<number, number>()
  #total = 0

  add(events: readonly { readonly date: number }[]): void {
    for (const { date } of events) {
      // Floor division by a power of two: the same bucket as SQL's arithmetic shift, negatives too.
      const bucket = Math.floor(date / 2 ** bucketBits)
      this.#counts.set(bucket, (this.#counts.get(bucket) ?? 0) + 1)
    }
    this.#total += events.length
  }

  get total(): number {
    return this.#total
  }

  /** Buckets in ascending order, the lock order of event-count.ts. */
  ascending(): [bucket: number, count: number][] {
    return [...this.#counts].sort(([a], [b]) => a - b)
  }
}

/** From here to the end of the transaction, the triggers leave the counting to the caller. */
export async function deferCounts(trx: Executor): Promise<void> {
  await sql`select set_config('ers.deferred_counts', 'on', true)`.execute(trx)
}

/** Adds the tally, in the lock order of every live write. Shard 0: the one a bulk write takes. */
export async function applyCounts(trx: Executor, tally: BucketTally): Promise<void> {
  if (tally.total === 0) return
  await sql`update counters set value = value + ${tally.total}
    where name = ${eventCounter} and shard = 0`.execute(trx)
  const buckets = tally.ascending()
  await sql`insert into event_buckets (bucket, shard, count)
    select bucket, 0, n from unnest(${buckets.map(([b]) => b)}::bigint[], ${buckets.map(([, n]) => n)}::bigint[])
      as added (bucket, n)
    order by bucket
    on conflict (bucket, shard) do update set count = event_buckets.count + excluded.count`.execute(trx)
}

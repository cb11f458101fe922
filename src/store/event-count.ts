// The number of events, kept in the same transaction as every write that adds or removes events,
// so that `total` is exact without counting a million rows per page (count(*) at 1M rows: ~0.4 ms
// on SQLite, ~60 ms on PostgreSQL).
//
// The count is spread over `counterShards` rows of table `counters` (name 'events'); a write adds
// its change to one shard picked at random, and the total is their sum. On PostgreSQL concurrent
// creates then rarely queue behind one row lock until the other commits; on SQLite, where writers
// are serialised anyway, the shards cost a sum over 16 rows. A shard may go below zero; the sum
// cannot. Reads see the counter rows in the same snapshot as the events (one statement, or one
// transaction), so a page and its total always agree.
import { type QueryCreator, sql } from 'kysely'
import type { Executor } from './executor.ts'
import type { Database } from './schema.ts'

export const counterShards = 16
export const eventCounter = 'events'

// Lock order: a write that changes the count takes its counter shard before it writes events,
// whose statement triggers then take date buckets (event-buckets.ts) at the end of the statement.
// The one-statement create (writes.ts insertEventLogged) can only do it that way round; a delete
// or a create in a transaction that did it the other way round would deadlock with it.

/** The shard a write changes, at random, so that concurrent writes rarely wait for one another. */
export const pickShard = () => Math.floor(Math.random() * counterShards)

/**
 * Adds `delta` to the count of events; call it inside the write's transaction, before the write
 * touches events (see the lock order above). A delta of 0 only takes the shard's lock.
 */
export async function countEvents(trx: Executor, delta: number, shard = pickShard()): Promise<void> {
  await countedEvents(trx, delta, shard).execute()
}

/** The UPDATE that adds `delta` to a shard, to run alone or as a WITH step. */
export const countedEvents = (db: QueryCreator<Database>, delta: number, shard = pickShard()) =>
  db
    .updateTable('counters')
    .set((eb) => ({ value: eb('value', '+', delta) }))
    .where('name', '=', eventCounter)
    .where('shard', '=', shard)

/**
 * The number of events, as an SQL expression for a select list, read from the counter. A filtered
 * collection counts its matching rows instead, with the same WHERE as the page, still in the
 * page's statement (filtered-page.ts).
 */
export const eventTotal = () =>
  sql<number>`(select coalesce(sum(value), 0) from counters where name = ${sql.lit(eventCounter)})`

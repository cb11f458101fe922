// The change log: one row per committed change of an event, written as the last step of the
// write's own transaction, so that a rolled-back write leaves no row and a committed one always
// has its row. Rows hold the event as that change left it, so a replay shows the state at the
// change rather than today's.
//
// Numbers are strictly increasing in commit order, on every store. A number is max(seq) + 1, taken
// while holding an exclusive lock on the log (PostgreSQL: a transaction-level advisory lock taken
// as the write's last step; SQLite: every writer holds the file's write lock already), and the
// lock is held until commit. So appends commit one after another in number order: whoever sees
// number N committed knows every lower number is committed too, and a number whose transaction
// rolls back is taken again by the next append, leaving no gap. PostgreSQL's sequences cannot
// give this: their values are taken before commit, and transactions commit out of order.
import { sql } from 'kysely'
import type { Change, ChangeKind, ChangeLogBounds } from '../domain/change.ts'
import type { Event } from '../domain/types.ts'
import type { Executor } from './kysely-store.ts'

/** The advisory lock topic (DialectConnection.exclusive) that orders appends. */
export const changeLogTopic = 'change-log'
/** The channel PostgreSQL notifies, in the write's transaction, after each append. */
export const changeChannel = 'ers_changes'

type Appended = { kind: ChangeKind; event: Event } | { kind: 'reset' }

/**
 * Appends the change with the next number. The caller holds the log's lock (`changeLogTopic`) and
 * commits at once: anything written after it would hold the lock, and every other writer, longer.
 */
export async function appendChange(trx: Executor, change: Appended, now = Date.now()): Promise<number> {
  const event = change.kind === 'reset' ? undefined : change.event
  const { seq } = await trx
    .insertInto('change_log')
    .values({
      seq: sql<number>`(select coalesce(max(seq), 0) + 1 from change_log)`,
      kind: change.kind,
      event_id: event?.id ?? null,
      title: event?.title ?? null,
      starts_at: event?.date ?? null,
      location_id: event?.locationId ?? null,
      version: event?.version ?? null,
      changed_at: now,
    })
    .returning('seq')
    .executeTakeFirstOrThrow()
  return Number(seq)
}

/** The committed changes numbered above `after`, oldest first, at most `limit`. */
export async function changesAfter(db: Executor, after: number, limit: number): Promise<Change[]> {
  const rows = await db
    .selectFrom('change_log')
    .selectAll()
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute()
  return rows.map((row): Change => {
    const seq = Number(row.seq)
    if (row.kind === 'reset' || row.event_id === null) return { seq, kind: 'reset' }
    return {
      seq,
      kind: row.kind as ChangeKind,
      event: {
        id: Number(row.event_id),
        title: row.title ?? '',
        date: Number(row.starts_at),
        locationId: Number(row.location_id),
        version: Number(row.version),
      },
    }
  })
}

export async function changeLogBounds(db: Executor): Promise<ChangeLogBounds> {
  const row = await db
    .selectFrom('change_log')
    .select((eb) => [eb.fn.min('seq').as('oldest'), eb.fn.max('seq').as('newest')])
    .executeTakeFirst()
  const newest = Number(row?.newest ?? 0)
  return { oldest: row?.oldest == null ? newest + 1 : Number(row.oldest), newest }
}

/**
 * Deletes the changes older than `before` (epoch ms) and all but the newest `keep`; the newest
 * change always stays, so numbering continues from it. Returns how many went.
 */
export async function trimChanges(trx: Executor, before: number, keep: number): Promise<number> {
  const { newest } = await changeLogBounds(trx)
  const result = await trx
    .deleteFrom('change_log')
    .where('seq', '<', newest)
    .where((eb) => eb.or([eb('changed_at', '<', before), eb('seq', '<=', newest - Math.max(keep, 1))]))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

// The change log: one row per committed change of an event, written as the last step of the
// write's own transaction, so that a rolled-back write leaves no row and a committed one always
// has its row. Rows hold the event as that change left it, so a replay shows the state at the
// change rather than today's.
//
// Numbers are strictly increasing in the order changes become visible, with no gap: whoever sees
// number N committed knows every lower number is committed too. PostgreSQL's sequences cannot
// give this: their values are taken before commit, and transactions commit out of order. A number
// is max(seq) + 1 (or + k for the k-th of a batch), taken under an exclusive lock on the log held
// until commit. Where that happens is the dialect's choice (flavour.changeNumbering):
// - in the write (SQLite, where every writer holds the file's write lock anyway): the change is
//   numbered as the write's last step, and a number whose transaction rolls back is taken again;
// - by readers (PostgreSQL): the write logs its change with no number and takes no lock, so
//   writes commit side by side. Before reading the log, a reader numbers every change that has
//   committed unnumbered, in the order they were logged, in one short transaction under the
//   lock (numberChanges). Two changes of one event are logged in the order they commit (the
//   second waits for the first's row lock), so they are numbered in that order too. Measured
//   with 10 writers on PostgreSQL: authenticated PUT went from 133 to ~580 requests/s when the
//   lock left the write path (bench put-event, 10,000 events).
import { sql } from 'kysely'
import type { Change, ChangeKind, ChangeLogBounds } from '../domain/change.ts'
import type { Event } from '../domain/types.ts'
import type { Executor } from './executor.ts'

/** The advisory lock topic (DialectConnection.exclusive) that orders appends. */
export const changeLogTopic = 'change-log'
/** The channel PostgreSQL notifies, in the write's transaction, after each append. */
export const changeChannel = 'ers_changes'

export type Appended = { kind: ChangeKind; event: Event } | { kind: 'reset' }

/**
 * Appends the change, with the next number when `numbered`: then the caller holds the log's lock
 * (`changeLogTopic`) and commits at once, since anything written after it would hold the lock,
 * and every other writer, longer. Unnumbered, it waits for numberChanges.
 */
export async function appendChange(
  trx: Executor,
  change: Appended,
  numbered: boolean,
  now = Date.now(),
): Promise<void> {
  const event = change.kind === 'reset' ? undefined : change.event
  await trx
    .insertInto('change_log')
    .values({
      ...(numbered && { seq: sql<number>`(select coalesce(max(seq), 0) + 1 from change_log)` }),
      kind: change.kind,
      event_id: event?.id ?? null,
      title: event?.title ?? null,
      starts_at: event?.date ?? null,
      location_id: event?.locationId ?? null,
      version: event?.version ?? null,
      changed_at: now,
    })
    .execute()
}

/** At most this many changes are numbered in one statement; numberChanges repeats until done. */
const numberingBatch = 10_000

/**
 * Numbers the committed changes that have none, in the order they were logged, after the highest
 * number given. The caller holds the log's lock: each statement then sees every number given
 * before it. Returns how many it numbered.
 */
export async function numberChanges(trx: Executor): Promise<number> {
  let numbered = 0
  for (;;) {
    const result = await sql`
      update change_log set seq = pending.seq
      from (
        select entry, (select coalesce(max(seq), 0) from change_log) + row_number() over (order by entry) as seq
        from change_log where seq is null order by entry limit ${numberingBatch}
      ) as pending
      where change_log.entry = pending.entry`.execute(trx)
    const count = Number(result.numAffectedRows ?? 0)
    numbered += count
    if (count < numberingBatch) return numbered
  }
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

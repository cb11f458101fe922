// Where the dialects must differ in how an event write reaches the change log, side by side and
// chosen by name (flavour.changeNumbering), so that no repository asks which dialect it runs on.
//
// - `in-write` (SQLite): every writer holds the write lock anyway (BEGIN IMMEDIATE), so a change
//   is numbered in the write's own transaction under the log's lock. A create checks its location
//   first (requireLocation), inside that transaction.
// - `by-readers` (PostgreSQL): writers run side by side, so a change is logged unnumbered and
//   whoever reads the log first numbers what has committed. With no lock on the log to take, the
//   common create and edit are each one statement, their own transaction (writes/event-statements.ts):
//   one round trip. Such a create does not check its location first: the foreign key refuses an
//   unknown one, and `naming` turns that error into the same 422 as the check's.
import {
  type CredentialCheck,
  type Event,
  type EventChanges,
  isSignatureCheck,
  type Precondition,
} from '../domain/types.ts'
import { type Appended, appendChange, changeLogTopic, numberChanges } from './change-log.ts'
import type { NewEvent } from './event-store.ts'
import type { Executor } from './executor.ts'
import type { SqlFlavour } from './flavour.ts'
import { naming } from './location-references.ts'
import type { StoreContext } from './repositories/context.ts'
import { toEvent } from './rows.ts'
import { insertEventLogged, updateEventLogged } from './writes/event-statements.ts'
import { spendingOnFailure } from './writes/signature-nonces.ts'
import { requireStorable, titleColumns } from './writes/stored-text.ts'
import { whyNotWritten } from './writes/versioned.ts'

export interface ChangeNumbering {
  /**
   * Logs the change as the write's last step: where it is numbered in the write, the lock on the
   * log is held from here to the commit, so appends commit in number order (change-log.ts).
   */
  append(ctx: StoreContext, trx: Executor, change: Appended): Promise<void>
  /** Before the log is read: numbers what has committed, where the readers do. */
  numberCommitted(ctx: StoreContext): Promise<void>
  /** Creates the event, counted and logged; `inTransaction` is the form every dialect can run. */
  createEvent(ctx: StoreContext, event: NewEvent, inTransaction: () => Promise<Event>): Promise<Event>
  /** Edits the event as EventStore.updateEvent says; `inTransaction` as for createEvent. */
  updateEvent(ctx: StoreContext, edit: EventEdit, inTransaction: () => Promise<Event>): Promise<Event>
}

export interface EventEdit {
  readonly id: number
  readonly changes: EventChanges
  readonly precondition?: Precondition
  readonly asUser?: CredentialCheck
}

const inWrite: ChangeNumbering = {
  async append(ctx, trx, change) {
    await ctx.exclusive(trx, changeLogTopic)
    await appendChange(trx, change, true)
  },
  async numberCommitted() {},
  createEvent: (_ctx, _event, inTransaction) => inTransaction(),
  updateEvent: (_ctx, _edit, inTransaction) => inTransaction(),
}

const byReaders: ChangeNumbering = {
  async append(_ctx, trx, change) {
    await appendChange(trx, change, false)
  },
  async numberCommitted(ctx) {
    await ctx.write(async (trx) => {
      await ctx.exclusive(trx, changeLogTopic)
      await numberChanges(trx)
    })
  },
  async createEvent(ctx, event) {
    const created = await ctx
      .guard(() => ctx.retryingConflicts(() => insertEventLogged(ctx, event)))
      .catch((error: unknown) => {
        throw naming(error, event.locationId)
      })
    ctx.changed()
    return created
  },
  async updateEvent(ctx, { id, changes, precondition, asUser }, inTransaction) {
    // A new location is checked first (and an empty patch logs nothing): those take the
    // transaction; the common edit is one statement.
    if (changes.locationId !== undefined || Object.keys(changes).length === 0) return inTransaction()
    const values = {
      ...(changes.title !== undefined && titleColumns(changes.title)),
      ...(changes.date !== undefined && { starts_at: changes.date }),
    }
    // A signed write that fails before its statement spends its nonce spends it apart.
    const row = await spendingOnFailure(ctx.db, asUser, async () => {
      requireStorable('/title', changes.title)
      return ctx.guard(() =>
        ctx.retryingConflicts(() => updateEventLogged(ctx, id, values, precondition, asUser)),
      )
    })
    // Asked afterwards, outside the statement: the answer (404 or 412) held a moment ago.
    if (!row) {
      const byUser = asUser && !isSignatureCheck(asUser) ? asUser : undefined
      throw await ctx.guard(() => whyNotWritten(ctx.db, 'events', id, precondition, byUser))
    }
    ctx.changed()
    return toEvent(row)
  },
}

/** The numbering of each name flavour.changeNumbering may give. */
export const changeNumberings: Readonly<Record<SqlFlavour['changeNumbering'], ChangeNumbering>> = {
  'in-write': inWrite,
  'by-readers': byReaders,
}

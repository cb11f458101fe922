// The events: the collection's pages, one event, and its writes, each logged in the change log.
import type { ChangeKind } from '../../domain/change.ts'
import { isFiltered } from '../../domain/event-filter.ts'
import { offsetOf } from '../../domain/paging.ts'
import type {
  CredentialCheck,
  Event,
  EventChanges,
  EventFilter,
  Page,
  Precondition,
} from '../../domain/types.ts'
import type { ChangeNumbering } from '../change-numbering.ts'
import { BucketRowsEstimate, deepPageOffset, prefersBuckets } from '../event-buckets.ts'
import type { IdempotencyKey, NewEvent } from '../event-store.ts'
import type { Executor } from '../executor.ts'
import { filteredPage } from '../filtered-page.ts'
import { recount } from '../recount.ts'
import { toEvent } from '../rows.ts'
import { insertEvent, insertEventOnce, requireLocation } from '../writes/events.ts'
import { confirmedInTransaction, spendingOnFailure } from '../writes/signature-nonces.ts'
import { requireStorable, titleColumns } from '../writes/stored-text.ts'
import { deleteVersioned, updateVersioned } from '../writes/versioned.ts'
import type { StoreContext } from './context.ts'

export class EventRepository {
  readonly #bucketRows: BucketRowsEstimate

  constructor(
    private readonly ctx: StoreContext,
    private readonly numbering: ChangeNumbering,
  ) {
    this.#bucketRows = new BucketRowsEstimate(async () =>
      Number((await ctx.db.executeQuery(ctx.hot.bucketRows())).rows[0]?.rows ?? 0),
    )
  }

  async list(page: Page, filter: EventFilter = {}) {
    const { ctx } = this
    // A filter's page and count can cost as much as a scan of the table (a short `q`, a deep page
    // at a location): apart from the cheap reads, under a budget, where the dialect can
    // (docs/architecture.md, "Finding events").
    if (isFiltered(filter))
      return ctx.guard(() => filteredPage(ctx.db, ctx.flavour, page, filter, ctx.dialect.readCostly))
    return ctx.guard(async () => {
      const offset = offsetOf(page)
      const fromBuckets =
        offset >= deepPageOffset &&
        prefersBuckets(offset, await this.#bucketRows.rows(), ctx.flavour.offsetRowsPerBucketRow)
      const { total, rows } = await ctx.page(
        fromBuckets ? ctx.hot.deepPage(offset, page.perPage, offset) : ctx.hot.page(page.perPage, offset),
        ctx.hot.total(),
      )
      return { total, events: rows.map(toEvent) }
    })
  }

  get(id: number) {
    return this.ctx.read(this.ctx.hot.event(id), ([row]) => row && toEvent(row), true)
  }

  create(event: NewEvent) {
    return this.numbering.createEvent(this.ctx, event, () =>
      this.ctx.writeEvents(async (trx) => this.#logChange(trx, 'created', await insertEvent(trx, event))),
    )
  }

  async createOnce(event: NewEvent, key: IdempotencyKey) {
    return this.ctx.writeEvents(async (trx) => {
      // Same-key requests queue here (on SQLite every writer already does), so the second one
      // sees the first one's committed row.
      await this.ctx.exclusive(trx, `idempotency:${key.principal}:${key.key}`)
      const result = await insertEventOnce(trx, event, key)
      // A replay changes nothing.
      if (!result.replayed) await this.#logChange(trx, 'created', result.event)
      return result
    })
  }

  update(id: number, changes: EventChanges, precondition?: Precondition, asUser?: CredentialCheck) {
    return this.numbering.updateEvent(this.ctx, { id, changes, precondition, asUser }, () =>
      // Rolled back, a signed write's nonce is spent apart (writes/signature-nonces.ts).
      spendingOnFailure(this.ctx.db, asUser, () =>
        this.ctx.writeEvents(async (trx) => {
          const byUser = await confirmedInTransaction(trx, asUser)
          requireStorable('/title', changes.title)
          if (changes.locationId !== undefined) await requireLocation(trx, changes.locationId)
          const values = {
            ...(changes.title !== undefined && titleColumns(changes.title)),
            ...(changes.date !== undefined && { starts_at: changes.date }),
            ...(changes.locationId !== undefined && { location_id: changes.locationId }),
          }
          const event = toEvent(await updateVersioned(trx, 'events', id, values, precondition, byUser))
          // An empty merge patch changes nothing (the version stays): nothing to log.
          if (Object.keys(changes).length === 0) return event
          return this.#logChange(trx, 'updated', event)
        }),
      ),
    )
  }

  async delete(id: number, precondition?: Precondition) {
    await this.ctx.writeEvents(async (trx) => {
      const row = await deleteVersioned(trx, 'events', id, precondition)
      await this.#logChange(trx, 'deleted', toEvent(row))
    })
  }

  /** `ers recount`: counts from the rows, repairs what differed, in one write (recount.ts). */
  async recount() {
    return this.ctx.write((trx) => recount(trx, this.ctx.flavour.rowLocks))
  }

  /** Logs the change as the write's last step (change-numbering.ts append). */
  async #logChange(trx: Executor, kind: ChangeKind, event: Event): Promise<Event> {
    await this.numbering.append(this.ctx, trx, { kind, event })
    return event
  }
}

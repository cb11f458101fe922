// The bulk load of locations with their events: `ers import`, and the sample data of a new database.
import type { ChangeNumbering } from '../change-numbering.ts'
import type { ImportLocation } from '../event-store.ts'
import type { Executor } from '../executor.ts'
import { importFrom, importStart } from '../import-cursor.ts'
import { importEvents } from '../import-events.ts'
import type { StoreContext } from './context.ts'

export class ImportRepository {
  constructor(
    private readonly ctx: StoreContext,
    private readonly numbering: ChangeNumbering,
  ) {}

  async importLocations(locations: Iterable<ImportLocation>, onProgress?: (events: number) => void) {
    const counts = await importEvents(
      {
        flavour: this.ctx.flavour,
        write: (work) => this.ctx.writeEvents(work),
        oneAtATime: (trx) => this.#oneImportAtATime(trx),
        logReset: (trx, events) => this.#logReset(trx, events),
      },
      locations,
      onProgress,
    )
    if (counts.events > 0) await this.ctx.guard(async () => this.ctx.dialect.afterBulkLoad?.())
    return counts
  }

  async initialiseOnce(fill: () => readonly ImportLocation[]) {
    return this.ctx.writeEvents(async (trx) => {
      const inserted = await trx
        .insertInto('meta')
        .values({ key: 'initialised_at', value: new Date().toISOString() })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst()
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false
      await this.#oneImportAtATime(trx)
      const batch = Math.floor(this.ctx.flavour.maxParameters / 4)
      const { counts } = await importFrom(trx, fill(), importStart, { batch })
      await this.#logReset(trx, counts.events)
      return true
    })
  }

  /** Imports queue behind one another: one long transaction at a time (import-events.ts). */
  async #oneImportAtATime(trx: Executor) {
    await this.ctx.exclusive(trx, 'import')
  }

  /** A bulk load adds one marker instead of a row per event: feeds tell clients to read again. */
  async #logReset(trx: Executor, events: number) {
    if (events > 0) await this.numbering.append(this.ctx, trx, { kind: 'reset' })
  }
}

// The change log as its readers see it (the change feed, feed/): numbered first where the readers
// number it (change-numbering.ts), then read, trimmed or watched.

import { changeLogBounds, changesAfter, trimChanges } from '../change-log.ts'
import type { ChangeNumbering } from '../change-numbering.ts'
import type { StoreContext } from './context.ts'

export class ChangeLogRepository {
  constructor(
    private readonly ctx: StoreContext,
    private readonly numbering: ChangeNumbering,
  ) {}

  async after(after: number, limit: number) {
    await this.numbering.numberCommitted(this.ctx)
    return this.ctx.guard(() => changesAfter(this.ctx.db, after, limit))
  }

  async bounds() {
    await this.numbering.numberCommitted(this.ctx)
    return this.ctx.guard(() => changeLogBounds(this.ctx.db))
  }

  async trim(before: number, keep: number) {
    // Numbered first, so that changes nobody has read yet are kept in bounds like the rest.
    await this.numbering.numberCommitted(this.ctx)
    return this.ctx.write((trx) => trimChanges(trx, before, keep))
  }

  watch(wake: () => void): () => Promise<void> {
    return this.ctx.watch(wake)
  }
}

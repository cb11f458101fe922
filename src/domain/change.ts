// One committed change of the event collection, as the change log keeps it (store/change-log.ts)
// and the change feed sends it (feed/).
import type { Event } from './types.ts'

export type ChangeKind = 'created' | 'updated' | 'deleted'

export type Change =
  /** `event` is the event as that change left it; for `deleted`, as it was last stored. */
  | { readonly seq: number; readonly kind: ChangeKind; readonly event: Event }
  /** The collection changed in bulk (an import): a client must read it again. */
  | { readonly seq: number; readonly kind: 'reset' }

/** The numbers the change log holds: none retained is `{ oldest: newest + 1, newest }`. */
export interface ChangeLogBounds {
  /** The lowest number still retained. */
  readonly oldest: number
  /** The highest number committed (0 before the first change). */
  readonly newest: number
}

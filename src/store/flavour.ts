// What the shared store code needs to know about a dialect, phrased as capabilities.
import type { ColumnDefinitionBuilder } from 'kysely'

export interface SqlFlavour {
  /** Column type of ids and references to them. */
  readonly idType: 'integer' | 'bigint'
  /** Makes `column` an identity primary key whose values are never reused. */
  identity(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder
  /** Largest number of bound parameters one statement may carry. */
  readonly maxParameters: number
  /** Statements that create the triggers keeping `event_buckets` (event-buckets.ts). */
  readonly eventBucketTriggers: readonly string[]
  /**
   * Whether `SELECT … FOR UPDATE` locks rows. Where it does not exist (SQLite), `write` already
   * serialises every writer, so no row lock is needed.
   */
  readonly rowLocks: boolean
}

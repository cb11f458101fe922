// What the shared store code needs to know about a dialect, phrased as capabilities.
import type { ColumnDefinitionBuilder, Expression, Kysely, SqlBool } from 'kysely'

export interface SqlFlavour {
  /** Column type of ids and references to them. */
  readonly idType: 'integer' | 'bigint'
  /** Makes `column` an identity primary key whose values are never reused. */
  identity(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder
  /** Largest number of bound parameters one statement may carry. */
  readonly maxParameters: number
  /**
   * The condition "`column` contains `needle`", compared exactly, code point by code point (no
   * collation, no case folding, no wildcards), in the form the dialect's substring index serves.
   */
  contains(column: string, needle: string): Expression<SqlBool>
  /** Makes an index that serves `contains` on `column`, where the dialect has such a thing. */
  substringIndex?(db: Kysely<unknown>, name: string, table: string, column: string): Promise<void>
}

// What the shared store code needs to know about a dialect, phrased as capabilities.
import type { Expression, SqlBool } from 'kysely'

export interface SqlFlavour {
  /** Largest number of bound parameters one statement may carry. */
  readonly maxParameters: number
  /**
   * How an import commits beside live writes (import-events.ts). `one-transaction`: all or
   * nothing, its counts deferred to its end, where writers run side by side (PostgreSQL).
   * `chunks`: short transactions with pauses between, where writers take turns at one write lock
   * (SQLite), so that live writes get turns during a long import.
   */
  readonly importCommits: 'one-transaction' | 'chunks'
  /** Which text of the frozen migrations (migrations/frozen.ts) writes this dialect's schema. */
  readonly schema: 'sqlite' | 'postgres'
  /**
   * How many rows OFFSET steps over in the time a deep page takes to add up one row of the date
   * buckets (measured; event-buckets.ts prefersBuckets).
   */
  readonly offsetRowsPerBucketRow: number
  /**
   * Whether `SELECT … FOR UPDATE` locks rows. Where it does not exist (SQLite), `write` already
   * serialises every writer, so no row lock is needed.
   */
  readonly rowLocks: boolean
  /**
   * When a change in the change log gets its number (change-log.ts). `in-write`: in the write's
   * own transaction, under the log's lock; right where every writer holds the write lock anyway
   * (SQLite). `by-readers`: the write logs the change unnumbered, and whoever reads the log
   * first numbers what has committed, in one short transaction under the log's lock; where
   * writers run side by side (PostgreSQL), so that they are not queued behind one lock held
   * across every commit. What each means for a write lives in one place, change-numbering.ts.
   */
  readonly changeNumbering: 'in-write' | 'by-readers'
  /**
   * The condition "`table`.`column` contains `needle`", compared exactly, code point by code point
   * (no collation, no case folding, no wildcards), using the dialect's substring index where one
   * can serve it.
   */
  contains(table: string, column: string, needle: string): Expression<SqlBool>
}

/** The name of the substring index of a column, as the frozen migration 0006 made it. */
export const substringIndexName = (table: string, column: string) => `${table}_by_${column}`

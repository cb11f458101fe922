// PostgreSQL's SQL flavour: the capabilities the shared store code asks about (../flavour.ts).
import { type SqlBool, sql } from 'kysely'
import type { SqlFlavour } from '../flavour.ts'

export const postgresFlavour: SqlFlavour = {
  // The wire protocol counts parameters in an unsigned 16-bit field.
  maxParameters: 65_535,
  // Measured at 10,000 and 1,000,000 events (2,235 bucket rows each): adding the buckets up took
  // 4-6 ms, stepping over a row 0.35-0.7 µs; the plans cross at offsets 7,000-9,000.
  offsetRowsPerBucketRow: 4,
  schema: 'postgres',
  importCommits: 'one-transaction',
  rowLocks: true,
  changeNumbering: 'by-readers',
  // LIKE, not strpos(): a pg_trgm index serves LIKE '%…%' (needles of 3 characters or more).
  // The default collation is deterministic, so LIKE compares code points exactly.
  contains: (_table, column, needle) =>
    sql<SqlBool>`${sql.ref(column)} like ${`%${needle.replace(/[\\%_]/g, '\\$&')}%`} escape '\\'`,
}

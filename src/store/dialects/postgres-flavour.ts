// PostgreSQL's SQL flavour: the capabilities the shared store code asks about (../flavour.ts).
import { type SqlBool, sql } from 'kysely'
import type { SqlFlavour } from '../flavour.ts'

export const postgresFlavour: SqlFlavour = {
  // The wire protocol counts parameters in an unsigned 16-bit field.
  maxParameters: 65_535,
  offsetRowsPerBucketRow: 2,
  schema: 'postgres',
  importCommits: 'one-transaction',
  rowLocks: true,
  changeNumbering: 'by-readers',
  // LIKE, not strpos(): a pg_trgm index serves LIKE '%…%' (needles of 3 characters or more).
  // The default collation is deterministic, so LIKE compares code points exactly.
  contains: (_table, column, needle) =>
    sql<SqlBool>`${sql.ref(column)} like ${`%${needle.replace(/[\\%_]/g, '\\$&')}%`} escape '\\'`,
}

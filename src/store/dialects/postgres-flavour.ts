// PostgreSQL's SQL flavour: the capabilities the shared store code asks about (../flavour.ts).
import { type SqlBool, sql } from 'kysely'
import { type SqlFlavour, substringIndexName } from '../flavour.ts'

export const postgresFlavour: SqlFlavour = {
  idType: 'bigint',
  // Identity columns draw from a sequence: a deleted row's id is never handed out again.
  identity: (c) => c.generatedByDefaultAsIdentity().primaryKey(),
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
  // pg_trgm is a trusted extension (PostgreSQL 13+): a database owner may create it.
  async substringIndex(db, table, column) {
    await sql`create extension if not exists pg_trgm`.execute(db)
    // The statement's text, whitespace included, is frozen in migrations/lock.json.
    await sql`create index ${sql.id(substringIndexName(table, column))} on ${sql.table(table)}
          using gin (${sql.ref(column)} gin_trgm_ops)`.execute(db)
    // Measured: until the new column has statistics, the planner takes LIKE '%…%' (and, after
    // a rewrite of every row, even `location_id = ?`) for common and scans the table.
    await sql`analyze ${sql.table(table)}`.execute(db)
  },
}

// What every frozen migration shares. A released migration holds the SQL it runs as text and
// imports nothing from the live code (docs/operations.md, "Migrations"): a change to a constant,
// a trigger body or the folding of titles must not change what an old migration creates on a new
// database. This file is frozen as well: change it and every released migration changes with it.
import { type Kysely, sql } from 'kysely'

/** The schema a migration writes for: where the dialects' SQL differs, each has its own text. */
export type SchemaDialect = 'sqlite' | 'postgres'

/** Runs the statements in order, each as written. */
export async function runStatements(db: Kysely<unknown>, statements: readonly string[]): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
}

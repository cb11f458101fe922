// The one way the store makes Kysely's migrator (dialects/sqlite.ts, dialects/postgres-pooler.ts).
import type { Kysely } from 'kysely'
import { type MigrationProvider, Migrator } from 'kysely/migration'

/**
 * Kysely's migrator for `provider`, ordering migrations by their names' code units. Its default,
 * localeCompare, loads ICU's collation data on every start: ~2 MiB of Node's binary stays resident
 * for the life of the process. The names (0001_initial…) sort the same either way.
 */
export const migratorFor = <D>(db: Kysely<D>, provider: MigrationProvider): Migrator =>
  new Migrator({ db, provider, nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0) })

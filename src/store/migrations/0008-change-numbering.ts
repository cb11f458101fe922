// Released: frozen (frozen.ts). On PostgreSQL, where readers number the log's changes
// (flavour.changeNumbering), a write logs its change without a number: rows are keyed by
// `entry`, the order they were logged in, and `seq` is given after commit. Numbers stay unique;
// rows still waiting for one are found by a partial index. Nothing to do on SQLite.
import type { Kysely } from 'kysely'
import type { Migration } from 'kysely/migration'
import { runStatements, type SchemaDialect } from './frozen.ts'

export function changeNumbering(dialect: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return
      await runStatements(db, [
        `alter table change_log add column entry bigint generated always as identity`,
        `alter table change_log drop constraint change_log_pkey`,
        `alter table change_log alter column seq drop not null`,
        `alter table change_log add primary key (entry)`,
        `create unique index change_log_by_seq on change_log (seq)`,
        `create index change_log_unnumbered on change_log (entry) where seq is null`,
      ])
    },
  }
}

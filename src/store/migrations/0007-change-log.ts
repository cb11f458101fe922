// Released: frozen (frozen.ts). The change feed's log (change-log.ts). No identity column:
// numbers are taken under a lock so that they follow commit order. No foreign key to events: a
// deleted event keeps its rows.
import type { Kysely } from 'kysely'
import type { Migration } from 'kysely/migration'
import { idReference } from './0001-initial.ts'
import { runStatements, type SchemaDialect } from './frozen.ts'

export function changeLog(dialect: SchemaDialect): Migration {
  const ref = idReference(dialect)
  return {
    async up(db: Kysely<unknown>) {
      await runStatements(db, [
        `create table "change_log" ("seq" bigint primary key, "kind" text not null check (kind in ('created', 'updated', 'deleted', 'reset')), "event_id" ${ref}, "title" text, "starts_at" bigint, "location_id" ${ref}, "version" integer, "changed_at" bigint not null)`,
      ])
    },
  }
}

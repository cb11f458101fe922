// Released: frozen (frozen.ts). No foreign key to events: a replay answers with the event as
// first created, even when it has since been changed or deleted.
import type { Kysely } from 'kysely'
import type { Migration } from 'kysely/migration'
import { idReference } from './0001-initial.ts'
import { runStatements, type SchemaDialect } from './frozen.ts'

export function idempotencyKeys(dialect: SchemaDialect): Migration {
  const ref = idReference(dialect)
  return {
    async up(db: Kysely<unknown>) {
      await runStatements(db, [
        `create table "idempotency_keys" ("principal" text not null, "key" text not null, "fingerprint" text not null, "event_id" ${ref} not null, "title" text not null, "starts_at" bigint not null, "location_id" ${ref} not null, "version" integer not null, "created_at" bigint not null, constraint "idempotency_keys_pk" primary key ("principal", "key"))`,
        `create index "idempotency_keys_by_age" on "idempotency_keys" ("created_at")`,
      ])
    },
  }
}

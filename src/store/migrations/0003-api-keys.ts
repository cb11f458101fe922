// Released: frozen (frozen.ts). The same on every dialect.
import type { Kysely } from 'kysely'
import type { Migration } from 'kysely/migration'
import { runStatements } from './frozen.ts'

export function apiKeys(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await runStatements(db, [
        // Ids are random text made by the service (`k_…`), so no identity column is needed.
        `create table "api_keys" ("id" text primary key, "name" text not null, "role" text not null check (role in ('editor', 'reader')), "sealed_secret" text not null, "created_at" bigint not null, "revoked_at" bigint)`,
        // The primary key makes "seen before" exact across instances: a second insert of a pair fails.
        `create table "signature_nonces" ("key_id" text not null, "nonce" text not null, "expires_at" bigint not null, constraint "signature_nonces_pk" primary key ("key_id", "nonce"))`,
        `create index "signature_nonces_by_expiry" on "signature_nonces" ("expires_at")`,
      ])
    },
  }
}

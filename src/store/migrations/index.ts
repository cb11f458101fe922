// Versioned migrations, as a static list (no file-system scanning, so bundling and tests agree).
// Each is written once for every dialect; where SQL differs, it asks the flavour, not the name.
import { type Kysely, sql } from 'kysely'
import type { Migration, MigrationProvider } from 'kysely/migration'
import { createEventBuckets } from '../event-buckets.ts'
import { counterShards, eventCounter } from '../event-count.ts'
import { eventFilters } from './0006-event-filters.ts'
import type { SchemaFlavour } from './schema-flavour.ts'

/** What writing the schema asks of a dialect. */

function initial(flavour: SchemaFlavour): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('locations')
        .addColumn('id', flavour.idType, (c) => flavour.identity(c))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .execute()
      await db.schema
        .createTable('events')
        .addColumn('id', flavour.idType, (c) => flavour.identity(c))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('starts_at', 'bigint', (c) => c.notNull())
        .addColumn('location_id', flavour.idType, (c) => c.notNull().references('locations.id'))
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .execute()
      // Serves the collection order (date, then id) without a sort.
      await db.schema.createIndex('events_by_date').on('events').columns(['starts_at', 'id']).execute()
      await db.schema.createIndex('events_by_location').on('events').column('location_id').execute()
      await db.schema
        .createTable('users')
        .addColumn('id', flavour.idType, (c) => flavour.identity(c))
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('editor', 'reader')`))
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('meta')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute()
    },
  }
}

function idempotencyKeys(flavour: SchemaFlavour): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // No foreign key to events: a replay answers with the event as first created, even when it
      // has since been changed or deleted.
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('principal', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('event_id', flavour.idType, (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('starts_at', 'bigint', (c) => c.notNull())
        .addColumn('location_id', flavour.idType, (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['principal', 'key'])
        .execute()
      await db.schema
        .createIndex('idempotency_keys_by_age')
        .on('idempotency_keys')
        .column('created_at')
        .execute()
    },
  }
}

function apiKeys(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // Ids are random text made by the service (`k_…`), so no identity column is needed.
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('editor', 'reader')`))
        .addColumn('sealed_secret', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at', 'bigint')
        .execute()
      // The primary key makes "seen before" exact across instances: a second insert of a pair fails.
      await db.schema
        .createTable('signature_nonces')
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('nonce', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('signature_nonces_pk', ['key_id', 'nonce'])
        .execute()
      await db.schema
        .createIndex('signature_nonces_by_expiry')
        .on('signature_nonces')
        .column('expires_at')
        .execute()
    },
  }
}

function counters(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('counters')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('shard', 'integer', (c) => c.notNull())
        .addColumn('value', 'bigint', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('counters_pk', ['name', 'shard'])
        .execute()
      // Every shard exists from the start (writes only update), and the count so far goes to
      // shard 0, counted inside the migration's own transaction (and lock) so none is missed.
      for (let shard = 0; shard < counterShards; shard++) {
        await sql`insert into counters (name, shard, value) values (${eventCounter}, ${shard}, 0)`.execute(db)
      }
      await sql`update counters set value = (select count(*) from events)
        where name = ${eventCounter} and shard = 0`.execute(db)
    },
  }
}

// The change feed's log (change-log.ts). No identity column: numbers are taken under a lock so
// that they follow commit order. No foreign key to events: a deleted event keeps its rows.
function changeLog(flavour: SchemaFlavour): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('change_log')
        .addColumn('seq', 'bigint', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) =>
          c.notNull().check(sql`kind in ('created', 'updated', 'deleted', 'reset')`),
        )
        .addColumn('event_id', flavour.idType)
        .addColumn('title', 'text')
        .addColumn('starts_at', 'bigint')
        .addColumn('location_id', flavour.idType)
        .addColumn('version', 'integer')
        .addColumn('changed_at', 'bigint', (c) => c.notNull())
        .execute()
    },
  }
}

// Where readers number the log's changes (flavour.changeNumbering), a write logs its change
// without a number: rows are keyed by `entry`, the order they were logged in, and `seq` is given
// after commit. Numbers stay unique; rows still waiting for one are found by a partial index.
function changeNumbering(flavour: SchemaFlavour): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (flavour.changeNumbering === 'in-write') return
      await sql`alter table change_log add column entry bigint generated always as identity`.execute(db)
      await sql`alter table change_log drop constraint change_log_pkey`.execute(db)
      await sql`alter table change_log alter column seq drop not null`.execute(db)
      await sql`alter table change_log add primary key (entry)`.execute(db)
      await sql`create unique index change_log_by_seq on change_log (seq)`.execute(db)
      await sql`create index change_log_unnumbered on change_log (entry) where seq is null`.execute(db)
    },
  }
}

export function migrations(flavour: SchemaFlavour): MigrationProvider {
  return {
    async getMigrations() {
      return {
        '0001_initial': initial(flavour),
        '0002_idempotency_keys': idempotencyKeys(flavour),
        '0003_api_keys': apiKeys(),
        '0004_counters': counters(),
        '0005_event_buckets': { up: (db) => createEventBuckets(db, flavour.eventBucketTriggers) },
        '0006_event_filters': eventFilters(flavour),
        '0007_change_log': changeLog(flavour),
        '0008_change_numbering': changeNumbering(flavour),
      }
    },
  }
}

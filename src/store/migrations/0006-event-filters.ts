// Released: frozen (frozen.ts). Finding events (CONTRACT.md §3): the folded title that `q`
// searches, and the indexes that keep each filter a range scan at a million events
// (docs/architecture.md, "Finding events").
import { type Kysely, sql } from 'kysely'
import type { Migration } from 'kysely/migration'
import { runStatements, type SchemaDialect } from './frozen.ts'

/** Rows folded per statement: memory stays bounded however many events there are. */
const backfillBatch = 1_000

/**
 * The folding as released (domain/event-filter.ts foldTitle then): a copy, so that a later change
 * to the live folding is a migration of its own, not a silent change of this one.
 */
const foldTitle = (text: string): string => text.toLowerCase()

// The substring index `q` uses: SQLite's FTS5 trigram table kept by triggers (external content:
// it stores the trigrams, not a second copy of the text; `case_sensitive 1`: the column is
// already folded); PostgreSQL's pg_trgm GIN index, then statistics for the new column (without
// them the planner took LIKE '%…%' for common and scanned the table).
const substringIndex = {
  sqlite: [
    `create virtual table "events_by_title_folded" using fts5("title_folded", content='events', content_rowid='id',
    columnsize=0, tokenize='trigram case_sensitive 1')`,
    `insert into "events_by_title_folded" ("events_by_title_folded") values ('rebuild')`,
    `create trigger "events_by_title_folded_insert" after insert on "events" begin insert into "events_by_title_folded" (rowid, "title_folded") values (new.id, new."title_folded"); end`,
    `create trigger "events_by_title_folded_delete" after delete on "events" begin insert into "events_by_title_folded" ("events_by_title_folded", rowid, "title_folded") values ('delete', old.id, old."title_folded"); end`,
    `create trigger "events_by_title_folded_update" after update of "title_folded" on "events"
    begin insert into "events_by_title_folded" ("events_by_title_folded", rowid, "title_folded") values ('delete', old.id, old."title_folded"); insert into "events_by_title_folded" (rowid, "title_folded") values (new.id, new."title_folded"); end`,
  ],
  postgres: [
    `create extension if not exists pg_trgm`,
    `create index "events_by_title_folded" on "events"
          using gin ("title_folded" gin_trgm_ops)`,
    `analyze "events"`,
  ],
} as const

export function eventFilters(dialect: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // Folded by JavaScript, not by SQL lower(), which differs between databases and locales.
      // The default only lets the column be added to a filled table; every write sets it.
      await runStatements(db, [`alter table "events" add column "title_folded" text default '' not null`])
      await foldExistingTitles(db, backfillBatch)
      // location_id first serves `location_id = ?` in date order, with or without a date range,
      // and what the single-column index served: the foreign key's checks, counting a location's events.
      // The substring index is built after the backfill, so it is built once rather than updated
      // row by row.
      await runStatements(db, [
        `drop index "events_by_location"`,
        `create index "events_by_location_date" on "events" ("location_id", "starts_at", "id")`,
        ...substringIndex[dialect],
      ])
    },
  }
}

/** Keyset batches by id, each one SELECT and one UPDATE, inside the migration's transaction. */
async function foldExistingTitles(db: Kysely<unknown>, batch: number): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await sql<{ id: number | string; title: string }>`
      select id, title from events where id > ${after} order by id limit ${batch}`.execute(db)
    const last = rows.at(-1)
    if (last === undefined) return
    const cases = rows.map((r) => sql`when ${Number(r.id)} then ${foldTitle(r.title)}`)
    const ids = rows.map((r) => Number(r.id))
    await sql`update events set title_folded = case id ${sql.join(cases, sql` `)} end
      where id in (${sql.join(ids)})`.execute(db)
    after = Number(last.id)
  }
}

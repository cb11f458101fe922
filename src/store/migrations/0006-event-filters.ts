// Finding events (CONTRACT.md §3): the folded title that `q` searches, and the indexes that keep
// each filter a range scan at a million events (docs/architecture.md, "Finding events").
import { type Kysely, sql } from 'kysely'
import type { Migration } from 'kysely/migration'
import { foldTitle } from '../../domain/event-filter.ts'
import type { SchemaFlavour } from './schema-flavour.ts'

/** Rows folded per statement: memory stays bounded however many events there are. */
const backfillBatch = 1_000

export function eventFilters(flavour: SchemaFlavour): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // Folded by JavaScript, not by SQL lower(), which differs between databases and locales.
      // The default only lets the column be added to a filled table; every write sets it.
      await db.schema
        .alterTable('events')
        .addColumn('title_folded', 'text', (c) => c.notNull().defaultTo(''))
        .execute()
      await foldExistingTitles(db, Math.min(backfillBatch, Math.floor(flavour.maxParameters / 3)))
      // location_id first serves `location_id = ?` in date order, with or without a date range,
      // and what the single-column index served: the foreign key's checks, counting a location's events.
      await db.schema.dropIndex('events_by_location').execute()
      await db.schema
        .createIndex('events_by_location_date')
        .on('events')
        .columns(['location_id', 'starts_at', 'id'])
        .execute()
      // Built after the backfill, so it is built once rather than updated row by row.
      await flavour.substringIndex?.(db, 'events', 'title_folded')
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

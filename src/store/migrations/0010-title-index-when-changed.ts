// Frozen once released (frozen.ts). SQLite's trigram index of `q` (0006) was kept by a trigger
// that fired on every write of `title_folded`, and every PUT writes it (a PUT replaces the title
// and the date): a PUT that keeps its title deleted and re-inserted all of the title's trigrams,
// ~90 µs of CPU, a fifth of such a PUT (docs/performance.md, "What a write costs"). It now fires
// only when the folded title changed; the index stays exact. PostgreSQL's GIN index is kept by
// PostgreSQL itself: nothing changes there.
import type { Migration } from 'kysely/migration'
import { runStatements, type SchemaDialect } from './frozen.ts'

const statements = {
  sqlite: [
    `drop trigger "events_by_title_folded_update"`,
    `create trigger "events_by_title_folded_update" after update of "title_folded" on "events"
    when old."title_folded" is not new."title_folded"
    begin insert into "events_by_title_folded" ("events_by_title_folded", rowid, "title_folded") values ('delete', old.id, old."title_folded"); insert into "events_by_title_folded" (rowid, "title_folded") values (new.id, new."title_folded"); end`,
  ],
  postgres: [],
} as const

export function titleIndexWhenChanged(dialect: SchemaDialect): Migration {
  return {
    async up(db) {
      await runStatements(db, statements[dialect])
    },
  }
}

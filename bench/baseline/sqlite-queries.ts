// The baseline's statements on better-sqlite3, with the service's durability settings (WAL,
// synchronous=FULL, foreign keys): cheaper settings would make its writes faster for the wrong reason.
import Sqlite from 'better-sqlite3'
import { type BaselineQueries, type Row, sql, toRow } from './queries.ts'

// The shared SQL numbers parameters as PostgreSQL does (`$N`), always in order of appearance, so
// plain `?` binds the same values here.
const positional = (text: string) => text.replace(/\$\d+/g, '?')

export function sqliteQueries(path: string): BaselineQueries {
  const db = new Sqlite(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  const get = db.prepare<[number], Row>(positional(sql.get))
  const page = db.prepare<[number, number], Row>(positional(sql.page))
  const count = db.prepare<[], { total: number }>(sql.count)
  const update = db.prepare<[string, number, number], Row>(positional(sql.update))
  const insert = db.prepare<[string, number, number], Row>(positional(sql.insert))
  return {
    async getEvent(id) {
      const row = get.get(id)
      return row && toRow(row)
    },
    async page(limit, offset) {
      const rows = page.all(limit, offset)
      const total = rows.length > 0 ? Number(rows[0]?.total) : Number(count.get()?.total)
      return { total, rows: rows.map(toRow) }
    },
    async updateEvent(id, title, startsAt) {
      const row = update.get(title, startsAt, id)
      return row && toRow(row)
    },
    async insertEvent(title, startsAt, locationId) {
      return toRow(insert.get(title, startsAt, locationId) as Row)
    },
    async close() {
      db.close()
    },
  }
}

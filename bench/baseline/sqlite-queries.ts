// The baseline's statements on better-sqlite3, with the service's durability settings (WAL,
// synchronous=FULL, foreign keys): cheaper settings would make its writes faster for the wrong reason.
import Sqlite from 'better-sqlite3'
import {
  type BaselineQueries,
  filterConditions,
  filteredSql,
  filterValues,
  type Row,
  sql,
  toRow,
} from './queries.ts'

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
  const update = db.prepare<[string, string, number, number], Row>(positional(sql.update))
  const insert = db.prepare<[string, string, number, number], Row>(positional(sql.insert))
  const filtered = (condition: (first: number) => string, arity: number) => {
    const text = filteredSql(condition, arity)
    return {
      page: db.prepare<unknown[], Row>(positional(text.page)),
      count: db.prepare<unknown[], Row>(positional(text.count)),
    }
  }
  // The service's store asks the same: its FTS5 trigram index narrows, instr decides.
  const byFilter = {
    dates: filtered(filterConditions.dates, 2),
    location: filtered(filterConditions.location, 1),
    q: filtered(
      (n) =>
        `instr(title_folded, $${n}) > 0 and ` +
        `id in (select rowid from events_by_title_folded where events_by_title_folded match $${n + 1})`,
      2,
    ),
  }
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
    async filteredPage(filter, limit, offset) {
      const [kind, values] = filterValues(filter)
      const bound = kind === 'q' ? [values, `"${values.replaceAll('"', '""')}"`] : values
      const { page, count } = byFilter[kind]
      const rows = page.all(...bound, ...bound, limit, offset)
      const total = rows.length > 0 ? Number(rows[0]?.total) : Number(count.get(...bound)?.total)
      return { total, rows: rows.map(toRow) }
    },
    async updateEvent(id, title, startsAt) {
      const row = update.get(title, title.toLowerCase(), startsAt, id)
      return row && toRow(row)
    },
    async insertEvent(title, startsAt, locationId) {
      return toRow(insert.get(title, title.toLowerCase(), startsAt, locationId) as Row)
    },
    async close() {
      db.close()
    },
  }
}

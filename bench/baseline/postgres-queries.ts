// The baseline's statements on a `pg` pool as large as the service's (DB_POOL_SIZE, default 10),
// each a named statement, so PostgreSQL parses and plans it once per connection.
import pg from 'pg'
import {
  type BaselineQueries,
  filterConditions,
  filteredSql,
  filterValues,
  type Row,
  sql,
  toRow,
} from './queries.ts'

// The service's store asks the same: LIKE over the pg_trgm index, the needle's wildcards escaped.
const byFilter = {
  dates: filteredSql(filterConditions.dates, 2),
  location: filteredSql(filterConditions.location, 1),
  q: filteredSql((n) => `title_folded like $${n} escape '\\'`, 1),
}

export function postgresQueries(url: string, poolSize: number): BaselineQueries {
  const pool = new pg.Pool({ connectionString: url, max: poolSize })
  pool.on('error', () => {})
  const run = async (name: keyof typeof sql, values: unknown[]) =>
    (await pool.query<Row>({ name: `baseline_${name}`, text: sql[name], values })).rows
  return {
    async getEvent(id) {
      const [row] = await run('get', [id])
      return row && toRow(row)
    },
    async page(limit, offset) {
      const rows = await run('page', [limit, offset])
      const total = rows.length > 0 ? Number(rows[0]?.total) : Number((await run('count', []))[0]?.total)
      return { total, rows: rows.map(toRow) }
    },
    async filteredPage(filter, limit, offset) {
      const [kind, values] = filterValues(filter)
      const bound = kind === 'q' ? [`%${values.replace(/[\\%_]/g, '\\$&')}%`] : values
      const statement = (part: 'page' | 'count', extra: unknown[]) =>
        pool.query<Row>({
          name: `baseline_${kind}_${part}`,
          text: byFilter[kind][part],
          values: [...bound, ...extra],
        })
      const { rows } = await statement('page', [...bound, limit, offset])
      const total =
        rows.length > 0 ? Number(rows[0]?.total) : Number((await statement('count', [])).rows[0]?.total)
      return { total, rows: rows.map(toRow) }
    },
    async updateEvent(id, title, startsAt) {
      const [row] = await run('update', [title, title.toLowerCase(), startsAt, id])
      return row && toRow(row)
    },
    async insertEvent(title, startsAt, locationId) {
      const [row] = await run('insert', [title, title.toLowerCase(), startsAt, locationId])
      return toRow(row as Row)
    },
    close: () => pool.end(),
  }
}

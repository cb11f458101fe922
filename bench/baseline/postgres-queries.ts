// The baseline's statements on a `pg` pool as large as the service's (DB_POOL_SIZE, default 10),
// each a named statement, so PostgreSQL parses and plans it once per connection.
import pg from 'pg'
import { type BaselineQueries, type Row, sql, toRow } from './queries.ts'

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
    async updateEvent(id, title, startsAt) {
      const [row] = await run('update', [title, startsAt, id])
      return row && toRow(row)
    },
    async insertEvent(title, startsAt, locationId) {
      const [row] = await run('insert', [title, startsAt, locationId])
      return toRow(row as Row)
    },
    close: () => pool.end(),
  }
}

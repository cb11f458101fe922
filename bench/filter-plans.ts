// How each filter of GET /events is answered on a filled database: the plan of the store's own
// statement (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN ANALYZE) and its median time over
// five runs, for page 1 of 20. The data is the harness's (bench/dataset.ts: ids in file order,
// "Benchmark event #<id>", one location per 100 events), e.g. from `ers import` of a file made by
// writeImportFile. Reads only.
//
//   node --import tsx bench/filter-plans.ts sqlite:/tmp/events.db
//   node --import tsx bench/filter-plans.ts postgres://postgres@127.0.0.1:5432/events
import type { EventFilter } from '../src/domain/types.ts'
import { openPostgres } from '../src/store/dialects/postgres.ts'
import { openSqlite } from '../src/store/dialects/sqlite.ts'
import { filteredPageQuery } from '../src/store/filtered-page.ts'

const url = process.argv[2] ?? ''
const sqlite = url.startsWith('sqlite:')
const dialect = sqlite ? openSqlite(url.slice('sqlite:'.length)) : openPostgres(url)
const day = (year: number, month: number, date: number) => Date.UTC(year, month - 1, date)

const filters: Record<string, EventFilter> = {
  'from/to, one month': { from: day(2030, 3, 1), to: day(2030, 4, 1) },
  'from/to, one day': { from: day(2030, 3, 1), to: day(2030, 3, 2) },
  location_id: { locationId: 500 },
  'location_id, from/to': { locationId: 500, from: day(2030, 1, 1), to: day(2035, 1, 1) },
  'q, one match': { q: '#123456' },
  'q, 11,111 matches': { q: 'event #12' },
  'q, 2 characters': { q: '#9' },
  'q, no match': { q: 'zzz' },
  'q, location_id': { q: '#12', locationId: 500 },
}

for (const [name, filter] of Object.entries(filters)) {
  const query = filteredPageQuery(dialect.db, dialect.flavour, { page: 1, perPage: 20 }, filter).compile()
  const explain = sqlite
    ? `explain query plan ${query.sql}`
    : `explain (analyze, costs off, timing off, summary off) ${query.sql}`
  const plan = (await dialect.db.executeQuery({ ...query, sql: explain })).rows as Record<string, string>[]
  await dialect.db.executeQuery(query)
  const times: number[] = []
  let total = 0
  for (let i = 0; i < 5; i++) {
    const started = performance.now()
    const { rows } = await dialect.db.executeQuery(query)
    times.push(performance.now() - started)
    total = Number((rows[0] as { total: unknown }).total)
  }
  times.sort((a, b) => a - b)
  console.log(`\n${name}: ${total} found, median ${times[2]?.toFixed(1)} ms`)
  for (const row of plan) console.log(`  ${sqlite ? row.detail : row['QUERY PLAN']}`)
}
await dialect.close()

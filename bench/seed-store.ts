// Fills a new SQLite file with the harness's data (bench/dataset.ts: "Benchmark event #<id>",
// one location per 100 events, at most 1,000, dates scrambled so date order is not id order)
// through the store's own migrations and importer, in this process: no import file, no build.
// For probes and tests that need a big database quickly (200,000 events: ~10 s here).
import type { ImportLocation } from '../src/store/event-store.ts'
import { openStore } from '../src/store/open-store.ts'
import { locationsFor } from './dataset.ts'

const start = Date.UTC(2027, 0, 1)

/** The date of event `id`: a multiplicative scramble over about 19 years, minute by minute. */
export const benchmarkDate = (id: number) => start + ((id * 7_919) % 10_000_019) * 60_000

/** The same events, in the same order, as writeImportFile (bench/dataset.ts) writes. */
export function* benchmarkLocations(events: number): Generator<ImportLocation> {
  const locations = locationsFor(events)
  let id = 0
  for (let l = 0; l < locations; l++) {
    const count = Math.floor(events / locations) + (l < events % locations ? 1 : 0)
    const list: { title: string; date: number }[] = []
    for (let e = 0; e < count; e++) {
      id++
      list.push({ title: `Benchmark event #${id}`, date: benchmarkDate(id) })
    }
    yield { name: `Venue ${l + 1}`, address: `${l + 1} Benchmark Street`, events: list }
  }
}

/** Migrates the SQLite file at `path` and imports `events` events into it. */
export function seedSqlite(path: string, events: number): Promise<void> {
  return seedThroughImporter(`sqlite:${path}`, events)
}

/** Migrates the (new) database at `url`, on either store, and imports `events` events into it. */
export async function seedThroughImporter(url: string, events: number): Promise<void> {
  const store = openStore(url)
  try {
    await store.migrate()
    await store.importLocations(benchmarkLocations(events))
  } finally {
    await store.close()
  }
}

/**
 * Migrates the PostgreSQL database at `url` (which must exist and be empty) and fills it with the
 * same titles and dates as benchmarkLocations, in a few statements (generate_series: ~4× faster
 * than the importer's batches). Locations hold contiguous runs of ids, as the importer's do.
 */
export async function seedPostgres(url: string, events: number): Promise<void> {
  const store = openStore(url, { postgres: { statementTimeoutMs: 3_600_000 } })
  try {
    await store.migrate()
  } finally {
    await store.close()
  }
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const locations = locationsFor(events)
    await client.query('begin')
    await client.query(
      `insert into locations (name, address)
       select 'Venue ' || l, l || ' Benchmark Street' from generate_series(1, $1::int) l`,
      [locations],
    )
    await client.query(
      `insert into events (title, title_folded, starts_at, location_id)
       select 'Benchmark event #' || i, 'benchmark event #' || i,
              $2::bigint + ((i::bigint * 7919) % 10000019) * 60000,
              (select min(id) from locations) + ((i - 1)::bigint * $3 / $1)
       from generate_series(1, $1::int) i`,
      [events, start, locations],
    )
    // The insert's trigger counts the total and the buckets (src/store/event-count.ts).
    await client.query('commit')
    await client.query('vacuum (analyze) events, event_buckets, counters, locations')
  } finally {
    await client.end()
  }
}

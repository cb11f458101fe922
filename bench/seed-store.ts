// Fills a new SQLite file with the harness's data (bench/dataset.ts: "Benchmark event #<id>",
// one location per 100 events, at most 1,000, dates scrambled so date order is not id order)
// through the store's own migrations and importer, in this process: no import file, no build.
// For probes and tests that need a big database quickly (200,000 events: ~10 s here).
import type { ImportLocation } from '../src/store/event-store.ts'
import { openStore } from '../src/store/open-store.ts'
import { locationsFor } from './dataset.ts'

const start = Date.UTC(2027, 0, 1)

/** The same events, in the same order, as writeImportFile (bench/dataset.ts) writes. */
export function* benchmarkLocations(events: number): Generator<ImportLocation> {
  const locations = locationsFor(events)
  let id = 0
  for (let l = 0; l < locations; l++) {
    const count = Math.floor(events / locations) + (l < events % locations ? 1 : 0)
    const list: { title: string; date: number }[] = []
    for (let e = 0; e < count; e++) {
      id++
      const minute = (id * 7_919) % 10_000_019
      list.push({ title: `Benchmark event #${id}`, date: start + minute * 60_000 })
    }
    yield { name: `Venue ${l + 1}`, address: `${l + 1} Benchmark Street`, events: list }
  }
}

/** Migrates the SQLite file at `path` and imports `events` events into it. */
export async function seedSqlite(path: string, events: number): Promise<void> {
  const store = openStore(`sqlite:${path}`)
  try {
    await store.migrate()
    await store.importLocations(benchmarkLocations(events))
  } finally {
    await store.close()
  }
}

// The bulk load of locations with their events, inside the import's transaction.
import { countEvents, pickShard } from '../event-count.ts'
import type { ImportLocation } from '../event-store.ts'
import type { Executor } from '../executor.ts'
import type { SqlFlavour } from '../flavour.ts'
import { titleColumns } from './stored-text.ts'

export async function insertLocations(
  trx: Executor,
  flavour: SqlFlavour,
  locations: Iterable<ImportLocation>,
  onProgress?: (events: number) => void,
): Promise<{ locations: number; events: number }> {
  const batchSize = Math.floor(flavour.maxParameters / 4)
  let locationCount = 0
  let eventCount = 0
  // The counter's lock before any event (event-count.ts); the count is added once it is known.
  const shard = pickShard()
  await countEvents(trx, 0, shard)
  for (const location of locations) {
    const { id } = await trx
      .insertInto('locations')
      .values({ name: location.name, address: location.address })
      .returning('id')
      .executeTakeFirstOrThrow()
    locationCount++
    for (let start = 0; start < location.events.length; start += batchSize) {
      const batch = location.events.slice(start, start + batchSize)
      await trx
        .insertInto('events')
        .values(batch.map((e) => ({ ...titleColumns(e.title), starts_at: e.date, location_id: Number(id) })))
        .execute()
      eventCount += batch.length
      onProgress?.(eventCount)
    }
  }
  await countEvents(trx, eventCount, shard)
  return { locations: locationCount, events: eventCount }
}

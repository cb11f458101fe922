// Where an import stands: which location, which of its events. An import that commits in
// several transactions (import-events.ts) moves its cursor only once a transaction has committed,
// so a transaction that fails is run again from where the last one ended.
import type { ImportLocation } from './event-store.ts'
import type { Executor } from './executor.ts'
import { titleColumns } from './writes/stored-text.ts'

export interface ImportPosition {
  /** The location being imported. */
  readonly location: number
  /** Its first event not yet inserted. */
  readonly event: number
  /** Its id, once inserted. */
  readonly locationId?: number
  readonly counts: { readonly locations: number; readonly events: number }
}

export const importStart: ImportPosition = { location: 0, event: 0, counts: { locations: 0, events: 0 } }

export interface ImportStep {
  /** Events per INSERT statement. */
  readonly batch: number
  /** Asked after each statement: whether to end this transaction here. */
  readonly enough?: () => boolean
  /** Told of each batch of events before it is inserted (import-counts.ts). */
  readonly onEvents?: (events: readonly ImportLocation['events'][number][]) => void
  readonly onProgress?: (events: number) => void
}

/**
 * Inserts from `from` on, in `trx`, until every location is in or `step.enough()`; answers where
 * it stopped (`done` when nothing is left).
 */
export async function importFrom(
  trx: Executor,
  locations: readonly ImportLocation[],
  from: ImportPosition,
  step: ImportStep,
): Promise<ImportPosition & { done: boolean }> {
  let { location, event, locationId } = from
  let { locations: locationCount, events: eventCount } = from.counts
  const at = () => ({
    location,
    event,
    ...(locationId !== undefined && { locationId }),
    counts: { locations: locationCount, events: eventCount },
  })
  for (; location < locations.length; location++, event = 0, locationId = undefined) {
    const { name, address, events } = locations[location] as ImportLocation
    if (locationId === undefined) {
      const { id } = await trx
        .insertInto('locations')
        .values({ name, address })
        .returning('id')
        .executeTakeFirstOrThrow()
      locationId = Number(id)
      locationCount++
    }
    while (event < events.length) {
      const batch = events.slice(event, event + step.batch)
      step.onEvents?.(batch)
      const id = locationId
      await trx
        .insertInto('events')
        .values(batch.map((e) => ({ ...titleColumns(e.title), starts_at: e.date, location_id: id })))
        .execute()
      event += batch.length
      eventCount += batch.length
      step.onProgress?.(eventCount)
      if (step.enough?.())
        return { ...at(), done: event >= events.length && location + 1 >= locations.length }
    }
  }
  return { ...at(), done: true }
}

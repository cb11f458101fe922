// `ers recount`: the counts the service keeps (the collection's total, the events per date
// bucket) against a count of the rows, what differed, and the repair, all in one transaction of
// the store (store/recount.ts), safe beside a running service.

import type { KyselyStore } from '../store/kysely-store.ts'
import type { RecountReport } from '../store/recount.ts'

/** A bucket holds 2^28 ms of dates; it is named by the first instant it holds. */
const bucketStart = (bucket: number) => new Date(bucket * 2 ** 28).toISOString()

/** The lines `ers recount` prints for a report. */
export function recountLines({ events, differences }: RecountReport): string[] {
  if (differences.length === 0) return [`counts are right: ${events} events`]
  return [
    ...differences.map(({ what, kept, counted }) =>
      what === 'total'
        ? `total: kept ${kept}, counted ${counted}`
        : `events from ${bucketStart(what)} (bucket ${what}): kept ${kept}, counted ${counted}`,
    ),
    `repaired ${differences.length} ${differences.length === 1 ? 'count' : 'counts'}: ${events} events`,
  ]
}

export async function recountEvents(store: KyselyStore, out: (line: string) => void): Promise<void> {
  for (const line of recountLines(await store.recount())) out(line)
}

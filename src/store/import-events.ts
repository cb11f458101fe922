// `ers import` beside live writes (docs/architecture.md, "Imports beside live writes"). How the
// import commits is the dialect's choice (flavour.importCommits):
// - `one-transaction` (PostgreSQL): all or nothing; the counts are deferred to its end
//   (import-counts.ts), so it holds no row a live write needs until its last statements.
// - `chunks` (SQLite, one writer at a time): transactions of about `chunkMs` of work each,
//   with a pause between them, so live writes queued for the write lock get their turns. A reader
//   sees the import grow chunk by chunk, each chunk whole with its counts; a failed import leaves
//   the chunks it committed.
import { setTimeout as sleep } from 'node:timers/promises'
import type { ImportLocation } from './event-store.ts'
import type { Executor } from './executor.ts'
import type { SqlFlavour } from './flavour.ts'
import { applyCounts, BucketTally, deferCounts } from './import-counts.ts'
import { type ImportPosition, importFrom, importStart } from './import-cursor.ts'

/** What an import needs of the store: its write transactions and its change log. */
export interface ImportContext {
  readonly flavour: Pick<SqlFlavour, 'importCommits' | 'maxParameters'>
  /** A write transaction (retried on conflicts, as every write is). */
  write<T>(work: (trx: Executor) => Promise<T>): Promise<T>
  /** Queues the import behind any other import. */
  oneAtATime(trx: Executor): Promise<void>
  /** Logs one `reset` change: feeds tell their clients to read again. */
  logReset(trx: Executor, events: number): Promise<void>
}

/**
 * Work per SQLite transaction and the pause after it. Statements stop once `chunkMs` have passed,
 * so a chunk holds the write lock for that, its last INSERT of `chunkBatch` events and its commit
 * (synchronous=FULL: an fsync). Measured at 300,000 events on this 2-core machine with other work
 * beside it: statements 83 ms median per chunk, the whole chunk with its commit 120 ms median,
 * ~200 ms at worst unless the disk stalls the fsync.
 */
const chunkMs = 80
const chunkPauseMs = 50
const chunkBatch = 250

export async function importEvents(
  context: ImportContext,
  locations: Iterable<ImportLocation>,
  onProgress?: (events: number) => void,
): Promise<{ locations: number; events: number }> {
  const all = [...locations]
  return context.flavour.importCommits === 'chunks'
    ? inChunks(context, all, onProgress)
    : inOneTransaction(context, all, onProgress)
}

async function inOneTransaction(
  context: ImportContext,
  locations: readonly ImportLocation[],
  onProgress?: (events: number) => void,
) {
  return context.write(async (trx) => {
    await context.oneAtATime(trx)
    await deferCounts(trx)
    const tally = new BucketTally()
    const { counts } = await importFrom(trx, locations, importStart, {
      batch: Math.floor(context.flavour.maxParameters / 4),
      onEvents: (events) => tally.add(events),
      ...(onProgress && { onProgress }),
    })
    await applyCounts(trx, tally)
    await context.logReset(trx, counts.events)
    return counts
  })
}

async function inChunks(
  context: ImportContext,
  locations: readonly ImportLocation[],
  onProgress?: (events: number) => void,
) {
  let position: ImportPosition = importStart
  for (let chunk = 0; ; chunk++) {
    const from = position
    const reached = await context.write(async (trx) => {
      const started = performance.now()
      const reached = await importFrom(trx, locations, from, {
        batch: chunkBatch,
        enough: () => performance.now() - started >= chunkMs,
        ...(onProgress && { onProgress }),
      })
      // A reset when the import starts to show and when it is whole: a feed's client reads again
      // then, and a failed import's committed chunks were announced.
      if (chunk === 0 || reached.done) await context.logReset(trx, reached.counts.events)
      return reached
    })
    position = reached
    if (reached.done) return reached.counts
    await sleep(chunkPauseMs)
  }
}

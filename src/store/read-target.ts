// Where a plain read (a GET, HEAD or QUERY of events and locations) may be served: a replica, when
// the dialect has fresh ones (dialects/postgres-replicas.ts), unless the caller runs it inside
// readingPrimary(). The HTTP layer does so for the reads of a write and for a request that asks
// for the newest data (Cache-Control: no-cache); a context, not a parameter, so that every read of
// such a request follows it, the ones made deep inside a representation included, and the store's
// interface stays what it was.
import { AsyncLocalStorage } from 'node:async_hooks'

const primaryOnly = new AsyncLocalStorage<true>()

/**
 * Set once a store in this process reads from replicas. Until then the context is never entered:
 * where Node keeps it with async hooks (22), entering it once slows every promise after.
 */
let replicasInUse = false

export function replicasOpened(): void {
  replicasInUse = true
}

/** Runs `work` with every plain read it makes sent to the primary. */
export function readingPrimary<T>(work: () => T): T {
  return replicasInUse ? primaryOnly.run(true, work) : work()
}

/** True inside readingPrimary(). */
export function primaryRequired(): boolean {
  return primaryOnly.getStore() === true
}

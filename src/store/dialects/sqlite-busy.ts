// Waiting for SQLite's locks without blocking the event loop. better-sqlite3 is synchronous: its
// busy_timeout sleeps inside the call, freezing every request of the process (ARCHITECTURE.md,
// "Known traps"). So the connection runs with busy_timeout = 0, a statement that meets a lock
// fails at once with SQLITE_BUSY, and the caller retries here, sleeping with timers in between.
import { setTimeout as sleep } from 'node:timers/promises'
import { DomainError } from '../../domain/errors.ts'

/** True for better-sqlite3's SqliteError with code SQLITE_BUSY or an extended SQLITE_BUSY_* code. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'))
}

export interface BusyWait {
  /** The longest time to keep retrying, in ms; 0 tries once. */
  readonly waitMs: number
  /** What is waiting, for the log line when it gives up: "a write transaction", "a read". */
  readonly what: string
}

/** Time and chance, replaceable in tests. */
export interface BusyClock {
  now(): number
  sleep(ms: number): Promise<void>
  /** A number in [0, 1). */
  random(): number
}

const realClock: BusyClock = { now: () => performance.now(), sleep: (ms) => sleep(ms), random: Math.random }

// The first retry comes after a few ms (the CLI's short writes hold the lock about that long);
// each later pause doubles, up to a cap that keeps a freed lock from sitting idle for long.
const firstPauseMs = 4
const longestPauseMs = 100

/** The pause before retry number `retry` (0-based): exponential, with jitter so waiters spread out. */
export function pauseBefore(retry: number, random: number): number {
  const ceiling = Math.min(longestPauseMs, firstPauseMs * 2 ** retry)
  return ceiling / 2 + (ceiling / 2) * random
}

/**
 * Runs `attempt`; while it fails with SQLITE_BUSY and `wait.waitMs` has not passed, pauses and runs
 * it again. Any other failure passes through at once. When the time is up, fails with
 * DomainError('unavailable') whose cause says what waited, for how long, and what SQLite said.
 * `attempt` must leave nothing half-done when it fails (no open transaction, no held connection).
 */
export async function whileBusy<T>(
  attempt: () => Promise<T>,
  wait: BusyWait,
  clock: BusyClock = realClock,
): Promise<T> {
  const start = clock.now()
  for (let retry = 0; ; retry++) {
    try {
      return await attempt()
    } catch (error) {
      if (!isBusy(error)) throw error
      const waited = clock.now() - start
      const left = wait.waitMs - waited
      if (left <= 0) throw gaveUp(error, wait, waited, retry + 1)
      await clock.sleep(Math.min(left, pauseBefore(retry, clock.random())))
    }
  }
}

function gaveUp(error: unknown, wait: BusyWait, waited: number, attempts: number): DomainError {
  const unavailable = new DomainError(
    'unavailable',
    'the database is locked by another process, such as an import; try again shortly',
  )
  const code = (error as { code?: unknown }).code
  // For the log line of whoever answers the client (http/problems.ts logs the cause; pino appends
  // the driver's own message, "database is locked", from the cause after it).
  unavailable.cause = new Error(
    `SQLite: gave up on ${wait.what} after ${Math.round(waited)} ms and ${attempts} attempts ` +
      `(limit ${wait.waitMs} ms): another connection holds the lock (${String(code)})`,
    { cause: error },
  )
  return unavailable
}

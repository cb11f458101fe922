// A clock for the connection guard (http/connection-guard.ts) that moves only when a test says so:
// a test can let "three header deadlines" pass without waiting for them on the real clock.
import type { GuardClock } from '../../src/http/connection-guard.ts'

export class ManualClock implements GuardClock {
  #ms = 1_000_000
  readonly #checks = new Set<() => void>()

  now(): number {
    return this.#ms
  }

  every(_ms: number, check: () => void): () => void {
    this.#checks.add(check)
    return () => this.#checks.delete(check)
  }

  /** Moves the time on by `ms` and runs every periodic check once, as its timer would have. */
  advance(ms: number): void {
    this.#ms += ms
    for (const check of [...this.#checks]) check()
  }
}

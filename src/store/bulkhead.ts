// A bulkhead: at most `slots` pieces of work run at once, and what arrives while they are all taken
// waits in a queue, first come first served, for a bounded time, then is refused. PostgreSQL's
// costly reads (filtered pages of /events) pass through one before they take a connection of their
// own small pool (dialects/postgres-costly.ts): however many arrive, they hold at most `slots`
// connections, and the cheap reads' pool is never theirs to take.
//
// The refusal is the caller's error value (`too_costly`: 503 with Retry-After), thrown at the
// wait's deadline by a timer: nothing waits longer than allowed, whatever the work ahead of it does.

export interface BulkheadStats {
  /** Waiting for a slot now. */
  readonly queued: number
  /** Work that found every slot taken and waited (admitted or refused), since the start. */
  readonly waits: number
  /** The time all of those waited, in ms. */
  readonly waitedMs: number
  /** Work refused because no slot freed within the wait allowed, since the start. */
  readonly refused: number
}

interface Waiter {
  readonly admit: () => void
  readonly since: number
  timer: NodeJS.Timeout | undefined
}

export class Bulkhead {
  readonly #slots: number
  #running = 0
  readonly #queue: Waiter[] = []
  #waits = 0
  #waitedMs = 0
  #refused = 0

  constructor(slots: number) {
    this.#slots = Math.max(1, slots)
  }

  /**
   * Runs `work` once a slot is free. Waits at most `maxWaitMs` for one; past that, throws `refusal()`
   * without running it. The slot is freed when `work` settles, whichever way.
   */
  async run<T>(work: () => Promise<T>, maxWaitMs: number, refusal: () => Error): Promise<T> {
    if (this.#running >= this.#slots || this.#queue.length > 0) await this.#wait(maxWaitMs, refusal)
    else this.#running++
    try {
      return await work()
    } finally {
      this.#release()
    }
  }

  stats(): BulkheadStats {
    return {
      queued: this.#queue.length,
      waits: this.#waits,
      waitedMs: this.#waitedMs,
      refused: this.#refused,
    }
  }

  #wait(maxWaitMs: number, refusal: () => Error): Promise<void> {
    this.#waits++
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        since: performance.now(),
        timer: undefined,
        // The slot passes straight from the work that frees it (#release): #running stays counted.
        admit: () => {
          clearTimeout(waiter.timer)
          this.#waitedMs += performance.now() - waiter.since
          resolve()
        },
      }
      waiter.timer = setTimeout(() => {
        const at = this.#queue.indexOf(waiter)
        if (at < 0) return
        this.#queue.splice(at, 1)
        this.#waitedMs += performance.now() - waiter.since
        this.#refused++
        reject(refusal())
      }, maxWaitMs)
      this.#queue.push(waiter)
    })
  }

  #release() {
    const next = this.#queue.shift()
    if (next) next.admit()
    else this.#running--
  }
}

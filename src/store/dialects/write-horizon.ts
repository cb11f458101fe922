// Read your writes over replicas: the primary's WAL position that covers every write this process
// has committed, so that a read sent to a replica can wait until the replica has replayed it.
//
// The position is asked for after the commit, in a statement of its own: one taken inside the
// transaction lies before its commit record, and a replica that replayed up to it may not show the
// write yet. Asked for in the background, not in the write, so the write's answer does not wait
// for it: a read that follows the write waits for it instead (usually done by then). Writes that
// commit while one is on its way share the next, so under load it costs far fewer statements than
// writes (bench/replicas.ts measures the writes with and without).

export class WriteHorizon {
  /** Covers every write whose position has been asked for and answered. */
  #covered = 0n
  #inFlight: Promise<void> | undefined
  #queued: Promise<void> | undefined
  /** Settles once every write committed so far is covered; undefined when none is outstanding. */
  #pending: Promise<void> | undefined
  /** The last attempt failed: the next read asks again (its write may not be covered). */
  #failed = false

  /** `position`: the primary's position now, as an LSN that compares (replica-lag.ts). */
  constructor(private readonly position: () => Promise<bigint>) {}

  /** After a write of this process committed (or may have: its answer was lost). */
  committed(): void {
    const pending = this.#next()
    this.#pending = pending
    // Forgotten once done, so the reads after it need not wait for a promise at all.
    pending.then(
      () => {
        if (this.#pending === pending) this.#pending = undefined
      },
      () => {
        if (this.#pending === pending) this.#pending = undefined
        this.#failed = true
      },
    )
  }

  /**
   * The position a replica must have replayed before it may serve a read that starts now;
   * undefined when it cannot be known (the primary did not answer), and the read goes there.
   */
  required(): bigint | undefined | Promise<bigint | undefined> {
    if (this.#failed) {
      this.#failed = false
      this.committed()
    }
    const pending = this.#pending
    if (!pending) return this.#covered
    return pending.then(
      () => this.#covered,
      () => undefined,
    )
  }

  /** A position asked for after this moment: the one on its way when none is, else the next one. */
  #next(): Promise<void> {
    if (!this.#inFlight) {
      const asked = this.position().then((lsn) => {
        if (lsn > this.#covered) this.#covered = lsn
      })
      this.#inFlight = asked
      const clear = () => {
        if (this.#inFlight === asked) this.#inFlight = undefined
      }
      asked.then(clear, clear)
      return asked
    }
    // The one on its way may have been asked before this commit: the next one starts after it.
    this.#queued ??= this.#inFlight
      .catch(() => {})
      .then(() => {
        this.#queued = undefined
        return this.#next()
      })
    return this.#queued
  }
}

// How far behind the primary a replica is, in milliseconds, from positions in the WAL (LSNs).
//
// The primary's position is sampled now and then (postgres-replicas.ts); a replica that has
// replayed up to the position the primary had at time t holds every transaction committed before
// t, so its data is at most (now - t) old. That stays true on an idle primary, where
// `now() - pg_last_xact_replay_timestamp()` would grow for ever with no transaction to replay,
// and it needs no clock shared by the two servers: both times are this process's.

/** An LSN as PostgreSQL writes it (`16/B374D848`), as a number that compares. */
export function parseLsn(text: string): bigint {
  const slash = text.indexOf('/')
  if (slash < 0) throw new Error(`not an LSN: ${text}`)
  return (BigInt(`0x${text.slice(0, slash)}`) << 32n) | BigInt(`0x${text.slice(slash + 1)}`)
}

interface Sample {
  readonly at: number
  readonly lsn: bigint
}

/** The primary's recent positions, oldest first, as long as `keepMs` needs. */
export class PrimaryPositions {
  readonly #samples: Sample[] = []
  constructor(private readonly keepMs: number) {}

  add(at: number, lsn: bigint): void {
    this.#samples.push({ at, lsn })
    // Keep one sample older than the window, so that a lag up to keepMs can still be told.
    while (this.#samples.length > 2 && (this.#samples[1] as Sample).at < at - this.keepMs)
      this.#samples.shift()
  }

  /** When the primary was last seen at `lsn` or before it; undefined when no sample is that old. */
  #reachedBy(lsn: bigint): Sample | undefined {
    for (let i = this.#samples.length - 1; i >= 0; i--) {
      const sample = this.#samples[i] as Sample
      if (sample.lsn <= lsn) return sample
    }
    return undefined
  }

  /**
   * The most the data of a replica that has replayed `replayed` at time `at` can be behind the
   * primary, in ms; Infinity when it is behind every sample kept (or none was taken yet).
   */
  lagMs(replayed: bigint, at: number): number {
    const sample = this.#reachedBy(replayed)
    return sample ? Math.max(0, at - sample.at) : Number.POSITIVE_INFINITY
  }
}

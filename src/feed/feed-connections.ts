// The open feeds of one process: the caps on how many (per client address and in total), one
// heartbeat timer for all of them, and ending them all when the server drains.
import { addressBlock } from '../auth/failed-attempts.ts'
import type { FeedStream } from './feed-stream.ts'

export interface FeedLimits {
  /** Open feeds allowed in total (0: no cap). */
  readonly maxConnections: number
  /** Open feeds allowed per client address (an IPv6 address by its /64; 0: no cap). */
  readonly maxPerAddress: number
  /** Interval of the comment lines sent to every feed. */
  readonly heartbeatMs: number
}

export type Refusal = 'address' | 'total'

export class FeedConnections {
  readonly #open = new Set<FeedStream>()
  readonly #perAddress = new Map<string, number>()
  #heartbeat: NodeJS.Timeout | undefined

  constructor(private readonly limits: FeedLimits) {}

  get size(): number {
    return this.#open.size
  }

  /** Why a new feed from `address` is refused, or undefined when it may open. */
  refusal(address: string): Refusal | undefined {
    const { maxConnections, maxPerAddress } = this.limits
    if (maxPerAddress > 0 && (this.#perAddress.get(addressBlock(address)) ?? 0) >= maxPerAddress) {
      return 'address'
    }
    if (maxConnections > 0 && this.#open.size >= maxConnections) return 'total'
    return undefined
  }

  /** Counts the feed as open from `address`; returns what to call when it ends. */
  add(stream: FeedStream, address: string): () => void {
    const key = addressBlock(address)
    this.#open.add(stream)
    this.#perAddress.set(key, (this.#perAddress.get(key) ?? 0) + 1)
    this.#heartbeat ??= setInterval(() => {
      for (const open of this.#open) open.heartbeat()
    }, this.limits.heartbeatMs)
    let removed = false
    return () => {
      if (removed) return
      removed = true
      this.#open.delete(stream)
      const left = (this.#perAddress.get(key) ?? 1) - 1
      if (left > 0) this.#perAddress.set(key, left)
      else this.#perAddress.delete(key)
      if (this.#open.size === 0) {
        clearInterval(this.#heartbeat)
        this.#heartbeat = undefined
      }
    }
  }

  /** Ends every feed (the server is draining); clients resume elsewhere or later. */
  endAll(): void {
    for (const stream of [...this.#open]) stream.end()
  }
}

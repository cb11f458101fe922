// Failed authentication attempts, counted per client address and per user name, so that guessing
// passwords costs the guesser a wait instead of costing the service a memory-hard hash per guess.
//
// The rule (AUTH_FAILURES_PER_MINUTE = n):
// - Every request refused for its credentials counts under two keys, the client's address (an
//   IPv6 address by its /64, which one client usually holds whole) and the user name (whether or
//   not that user exists, so the limit does not tell who exists). A request signature that fails
//   verification counts under the address alone (http/signature-auth.ts). A check that computes a hash
//   counts from the moment it starts, so a burst of concurrent guesses cannot all slip under the
//   limit; requests that share its hash (identical credentials at once) count when they fail.
// - A success gives its own count back (and only its own, only within its window): it never
//   resets a counter, so logging in as yourself cannot unlock another name or an address.
// - A key's window is a fixed minute from its first counted attempt. Once a key holds n, every
//   request carrying credentials under that key is answered 429 until its window ends, with no
//   hash computed, correct passwords and cached credentials included (otherwise a cached success
//   would keep answering guesses past the limit).
// - Requests answered 429 are not counted; neither are malformed credentials (they cost nothing).
//
// Counters are kept in memory, per process, behind AttemptCounter, so that a store shared between
// instances (Redis: INCR + PEXPIRE in one script) can replace MemoryAttemptCounter later.
import { hash } from 'node:crypto'
import { isIPv4, isIPv6 } from 'node:net'
import { DomainError } from '../domain/errors.ts'

/** An attempt counted under some keys, given back if it succeeds. */
export type Ticket = readonly { readonly key: string; readonly window: number }[]

/** How many failures a key may have in how long (the RateLimit-Policy a 429 names). */
export interface AttemptPolicy {
  readonly limit: number
  readonly windowSeconds: number
}

export interface AttemptCounter {
  readonly policy: AttemptPolicy
  /** Seconds until every key is under the limit again; 0 when none is at it. */
  retryAfter(keys: readonly string[]): Promise<number>
  /**
   * Counts one attempt under every key, unless one of them is at the limit: then nothing is
   * counted and the answer is the seconds to wait.
   */
  take(keys: readonly string[]): Promise<{ ticket: Ticket } | { retryAfterSeconds: number }>
  /** The attempt succeeded (or was never checked): its count is given back. */
  giveBack(ticket: Ticket): Promise<void>
}

/** Refusal of a credential check because too many attempts failed lately; says when to retry. */
export class TooManyAttempts extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    readonly policy: AttemptPolicy,
  ) {
    // The wait is in Retry-After only, so that bodies do not differ by the second they were sent in.
    super('rate_limited', 'too many failed authentication attempts; try again after Retry-After seconds')
  }
}

/** The keys a check of `name` from `address` counts under. */
export function attemptKeys(address: string, name: string): string[] {
  // A digest keeps keys short (a user-id may be kilobytes long) and names out of a shared store.
  // The one-shot hash: ~1 µs less than a Hash object, on every request with credentials.
  const nameKey = hash('sha256', name, 'base64url')
  return [addressKey(address), `name:${nameKey}`]
}

/**
 * The key of a client address alone: what a failed request signature counts under (it names no
 * user; its key id is no secret to guess), the same key a wrong password from there counts under.
 */
export const addressKey = (address: string): string => `address:${addressBlock(address)}`

/** An IPv4 address as is; an IPv6 address as its /64 (an IPv4-mapped one as the IPv4 address). */
export function addressBlock(address: string): string {
  // An IPv4 address stands for itself; this is every request's path, so no parsing for it.
  if (!address.includes(':')) return address
  const ip = address.replace(/%.*$/, '')
  if (!isIPv6(ip)) return ip
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped?.[1] && isIPv4(mapped[1])) return mapped[1]
  const [head = '', tail] = ip.split('::')
  const groups = (part: string) => (part === '' ? [] : part.split(':'))
  const size = (parts: string[]) => parts.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0)
  const headGroups = groups(head)
  const tailGroups = tail === undefined ? [] : groups(tail)
  const zeros = Array(8 - size(headGroups) - size(tailGroups)).fill('0')
  const full = [...headGroups, ...(tail === undefined ? [] : zeros), ...tailGroups]
  return `${full
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`
}

interface Window {
  count: number
  /** When the window ends (ms since the epoch); also the window's identity for giveBack. */
  readonly endsAt: number
}

/**
 * Counters in this process's memory. At most `maxKeys` windows are kept; they are ordered by when
 * they end, so ended ones are dropped from the front, and past the bound the oldest live one goes.
 * New keys appear only through checks that reach a hash (a few dozen per second at most), so with
 * the default bound a key is dropped before its minute is up only under a flood that the hashing
 * limiter already refuses.
 */
export class MemoryAttemptCounter implements AttemptCounter {
  readonly #windows = new Map<string, Window>()
  readonly policy: AttemptPolicy

  constructor(
    private readonly limit: number,
    private readonly options: { windowMs?: number; maxKeys?: number; now?: () => number } = {},
  ) {
    this.policy = { limit, windowSeconds: Math.ceil((options.windowMs ?? 60_000) / 1000) }
  }

  get size(): number {
    return this.#windows.size
  }

  async retryAfter(keys: readonly string[]): Promise<number> {
    return this.#blockedFor(keys, this.#now())
  }

  async take(keys: readonly string[]): Promise<{ ticket: Ticket } | { retryAfterSeconds: number }> {
    const now = this.#now()
    const blocked = this.#blockedFor(keys, now)
    if (blocked > 0) return { retryAfterSeconds: blocked }
    const ticket = keys.map((key) => {
      const window = this.#live(key, now) ?? this.#open(key, now)
      window.count++
      return { key, window: window.endsAt }
    })
    return { ticket }
  }

  async giveBack(ticket: Ticket): Promise<void> {
    for (const { key, window } of ticket) {
      const current = this.#windows.get(key)
      if (current?.endsAt !== window || current.count === 0) continue
      current.count--
      if (current.count === 0) this.#windows.delete(key)
    }
  }

  #blockedFor(keys: readonly string[], now: number): number {
    let ms = 0
    for (const key of keys) {
      const window = this.#live(key, now)
      if (window && window.count >= this.limit) ms = Math.max(ms, window.endsAt - now)
    }
    // RFC 9110 §10.2.3: whole seconds, and at least one so that "now" is never advised.
    return ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 0
  }

  #live(key: string, now: number): Window | undefined {
    const window = this.#windows.get(key)
    if (window && window.endsAt <= now) {
      this.#windows.delete(key)
      return undefined
    }
    return window
  }

  #open(key: string, now: number): Window {
    const max = this.options.maxKeys ?? 100_000
    for (const [oldest, window] of this.#windows) {
      if (window.endsAt > now && this.#windows.size < max) break
      this.#windows.delete(oldest)
    }
    const window = { count: 0, endsAt: now + (this.options.windowMs ?? 60_000) }
    this.#windows.set(key, window)
    return window
  }

  #now(): number {
    return (this.options.now ?? Date.now)()
  }
}

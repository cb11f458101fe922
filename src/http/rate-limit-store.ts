// Counters behind the request rate limits (http/rate-limit.ts): fixed windows, one per key, that
// start at a key's first hit and last `windowMs`.
//
// - MemoryCounters: this process alone.
// - RedisCounters: shared by every instance that uses the same Redis (REDIS_URL), one INCR and
//   PEXPIRE in one script, so two instances never both open a window for the same key.
// - FailoverCounters: Redis while it answers, this process's memory while it does not. A request
//   never waits long for Redis: the offline queue is off (a command while disconnected fails at
//   once) and a command that does not answer within `commandTimeoutMs` fails; either failure counts
//   the request locally, and the switch is logged once per transition, not per request. ioredis
//   keeps reconnecting in the background; once Redis is ready again, counting is shared again.
import { createRequire } from 'node:module'
import type { Redis } from 'ioredis'

/** One request counted under a key. */
export interface Hit {
  /** Requests counted in the key's current window, this one included. */
  readonly count: number
  /** Milliseconds until that window ends. */
  readonly resetMs: number
}

export interface Counters {
  /**
   * Counts one request under `key` in a window of `windowMs` (opened now when none is live).
   * Counters in memory answer at once, without a promise: every limited request waits for this.
   */
  hit(key: string, windowMs: number): Hit | Promise<Hit>
  /** Where counting happens now; undefined when there is only this process. */
  state(): CounterState | undefined
  close(): Promise<void>
}

/** For /health/ready: whether the counters are shared through Redis at the moment. */
export interface CounterState {
  readonly redis: 'up' | 'down'
  readonly detail: string
}

interface Window {
  count: number
  readonly endsAt: number
}

/**
 * Counters in this process's memory, at most `maxKeys` windows. They are kept in the order they
 * were opened, which with one window length is the order they end: ended ones are dropped from the
 * front, and past the bound the oldest live one goes (a flood from more addresses than that resets
 * some of its own counters early, never anyone else's).
 */
export class MemoryCounters implements Counters {
  readonly #windows = new Map<string, Window>()

  constructor(private readonly options: { maxKeys?: number; now?: () => number } = {}) {}

  get size(): number {
    return this.#windows.size
  }

  hit(key: string, windowMs: number): Hit {
    const now = (this.options.now ?? Date.now)()
    let window = this.#windows.get(key)
    if (window && window.endsAt <= now) {
      this.#windows.delete(key)
      window = undefined
    }
    if (!window) {
      const max = this.options.maxKeys ?? 100_000
      for (const [oldest, open] of this.#windows) {
        if (open.endsAt > now && this.#windows.size < max) break
        this.#windows.delete(oldest)
      }
      window = { count: 0, endsAt: now + windowMs }
      this.#windows.set(key, window)
    }
    window.count++
    return { count: window.count, resetMs: window.endsAt - now }
  }

  state(): undefined {
    return undefined
  }

  async close(): Promise<void> {
    this.#windows.clear()
  }
}

// INCR, then give the key its lifetime if it has none yet (the first hit of a window, or a key left
// without one by anything else); answers the count and the milliseconds left.
const hitScript = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`

type HitCommand = (key: string, windowMs: number) => Promise<[number, number]>

export interface FailoverOptions {
  readonly url: string
  /** Prepended to every key; lets several services (or tests) share one Redis without sharing counts. */
  readonly keyPrefix: string
  readonly log: { info(message: string): void; warn(object: object, message: string): void }
  readonly commandTimeoutMs?: number
  readonly local?: MemoryCounters
}

// ioredis (~6 MB of heap once loaded) is loaded only by a service that shares its counters: most
// run without REDIS_URL. It is CommonJS, so a require() loads it synchronously when first needed.
const requireHere = createRequire(import.meta.url)
const redisClient = (): typeof Redis => (requireHere('ioredis') as typeof import('ioredis')).Redis

/** Redis when it answers, local memory when it does not (see the top of this file). */
export class FailoverCounters implements Counters {
  readonly #redis: Redis
  readonly #hit: HitCommand
  readonly #local: MemoryCounters
  readonly #prefix: string
  readonly #log: FailoverOptions['log']
  /** Whether Redis is in use; undefined until the first connection succeeds or fails. */
  #up: boolean | undefined

  constructor(options: FailoverOptions) {
    this.#local = options.local ?? new MemoryCounters()
    this.#prefix = options.keyPrefix
    this.#log = options.log
    this.#redis = new (redisClient())(options.url, {
      // Fail at once while disconnected instead of queueing the command until a reconnect.
      enableOfflineQueue: false,
      commandTimeout: options.commandTimeoutMs ?? 250,
      connectTimeout: 1_000,
      maxRetriesPerRequest: 0,
      // Keep trying, at most every two seconds: Redis coming back is noticed within that.
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      // A failed connect or a wrong URL never stops the service from starting or serving.
      lazyConnect: false,
    })
    this.#redis.defineCommand('ersRateHit', { numberOfKeys: 1, lua: hitScript })
    const command = (this.#redis as unknown as { ersRateHit: HitCommand }).ersRateHit
    this.#hit = command.bind(this.#redis)
    this.#redis.on('ready', () => this.#mark(true))
    // 'error' must have a listener (ioredis prints unhandled ones); the transition is what is logged.
    this.#redis.on('error', (error) => this.#mark(false, error))
    this.#redis.on('close', () => this.#mark(false))
  }

  async hit(key: string, windowMs: number): Promise<Hit> {
    if (this.#redis.status === 'ready') {
      try {
        const [count, resetMs] = await this.#hit(this.#prefix + key, windowMs)
        return { count, resetMs }
      } catch (error) {
        this.#mark(false, error)
        // A connection that stopped answering (a command timed out) is dropped and made again, so
        // that 'ready' tells when Redis answers once more.
        if (this.#redis.status === 'ready') this.#redis.disconnect(true)
      }
    }
    return this.#local.hit(key, windowMs)
  }

  state(): CounterState {
    return this.#up
      ? { redis: 'up', detail: 'rate-limit counters are shared through Redis' }
      : {
          redis: 'down',
          detail: 'Redis cannot be reached: rate limits are counted by this instance alone until it is back',
        }
  }

  async close(): Promise<void> {
    this.#redis.removeAllListeners('close')
    this.#redis.disconnect()
    await this.#local.close()
  }

  #mark(up: boolean, error?: unknown): void {
    if (this.#up === up) return
    this.#up = up
    if (up) this.#log.info('rate-limit counters are shared through Redis')
    else
      this.#log.warn(
        { err: error },
        'Redis cannot be reached: rate limits are counted by this instance alone until it is back',
      )
  }
}

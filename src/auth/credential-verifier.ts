// Checks a user name and password against the store. A memory-hard hash on every request would
// cap throughput at a few dozen per second per core, so successful checks are remembered:
// - keyed by an HMAC (process-random key) of name and password, so the cache never holds a
//   password or anything that could be brute-forced offline without that key;
// - valid only while the user's stored hash is the one verified against (so a password change,
//   role change or removal through any instance takes effect at the next request), and for a short TTL;
// - concurrent misses for the same credentials share one hash computation (single-flight).
// A remembered success costs one user lookup (the store's indexed query by name) and an HMAC; for a
// write that confirms the credentials in its own statement (`deferrable`), an editor remembered
// there costs the HMAC alone: the user comes back `unconfirmed`, and the write requires them to be
// still an editor with the same hash (store: updateEvent's `asUser`), or writes nothing.
//
// Failed checks are limited before any hash is computed (failed-attempts.ts), and an unknown user
// costs exactly what a wrong password costs: the same lookup, the same single-flight by the same
// key, one hash against a dummy of the configured cost. Timing and answers tell nobody who exists.
//
// A stored hash weaker than the configured cost is recomputed after a successful check and
// stored only if it is still the one verified, so a concurrent password change wins.
import { createHmac, createSecretKey, randomBytes } from 'node:crypto'
import { mayWrite, type User } from '../domain/types.ts'
import { type AttemptCounter, attemptKeys, type Ticket, TooManyAttempts } from './failed-attempts.ts'
import { defaultHashCost } from './hash-cost.ts'
import { Limiter } from './limiter.ts'
import { dummyHash, type HashCost, hashPassword, needsRehash, verifyPassword } from './passwords.ts'

export interface UserSource {
  findUser(name: string): Promise<User | undefined>
  /** Replaces the user's hash only if it is still `expected`; returns whether it did. */
  replacePasswordHash(name: string, expected: string, replacement: string): Promise<boolean>
}

/** The password functions, replaceable so tests can count hash computations. */
export interface PasswordFunctions {
  verify(passwordHash: string, password: string): Promise<boolean>
  hash(password: string, cost: HashCost): Promise<string>
}

export interface VerifierOptions {
  readonly ttlMs: number
  readonly maxEntries?: number
  /** Hash computations at once, and how many may wait for one before `overloaded`. */
  readonly concurrency?: number
  readonly maxWaiting?: number
  /** The cost of new hashes (and of the dummy); weaker stored hashes are upgraded. */
  readonly cost?: HashCost
  /** Failed attempts per client address and per name; unlimited when absent. */
  readonly attempts?: AttemptCounter
  readonly passwords?: PasswordFunctions
  /** Told when an upgraded hash could not be stored (the login stands; the next one tries again). */
  readonly onRehashError?: (error: unknown) => void
  /** The clock the TTL is counted on, in ms (tests move it by hand); `Date.now` by default. */
  readonly now?: () => number
}

interface Remembered {
  readonly user: User
  readonly expiresAt: number
}

/** What one hash computation found: whether the password matched, and the upgraded hash if stored. */
interface Outcome {
  readonly ok: boolean
  readonly upgraded?: string
}

const defaultPasswords: PasswordFunctions = { verify: verifyPassword, hash: hashPassword }

export class CredentialVerifier {
  // A KeyObject: Node 24 spends ~15 µs checking a Buffer key before each HMAC (measured).
  readonly #key = createSecretKey(randomBytes(32))
  readonly #remembered = new Map<string, Remembered>()
  readonly #inFlight = new Map<string, Promise<Outcome>>()
  readonly #hashing: Limiter
  readonly #cost: HashCost
  readonly #passwords: PasswordFunctions
  readonly #now: () => number
  #hashes = 0

  constructor(
    private readonly users: UserSource,
    private readonly options: VerifierOptions,
  ) {
    this.#hashing = new Limiter(options.concurrency ?? 2, options.maxWaiting ?? 256)
    this.#now = options.now ?? Date.now
    this.#cost = options.cost ?? defaultHashCost
    this.#passwords = options.passwords ?? defaultPasswords
    // Made now, so that the first unknown user does not pay for it (and stand out by its time).
    dummyHash(this.#cost).catch(() => {})
  }

  /**
   * The user, when the password is theirs; undefined otherwise (unknown user or wrong password).
   * Throws TooManyAttempts when `client` or `name` has failed too often lately. With `deferrable`,
   * an editor remembered for these credentials comes back `unconfirmed`, without a lookup.
   */
  async verify(name: string, password: string, client = '', deferrable = false): Promise<User | undefined> {
    const keys = attemptKeys(client, name)
    const attempts = this.options.attempts
    // Before the cache too: a remembered success must not answer guesses past the limit.
    const wait = attempts ? await attempts.retryAfter(keys) : 0
    if (attempts && wait > 0) throw new TooManyAttempts(wait, attempts.policy)

    // The same bytes as three updates (name, NUL, password), in one: ~0.8 µs less per request.
    const key = createHmac('sha256', this.#key).update(`${name}\0${password}`).digest('base64url')
    const remembered = this.#remembered.get(key)
    const live = remembered && remembered.expiresAt > this.#now() ? remembered.user : undefined
    // Only an editor: a reader remembered as such may have become an editor since.
    if (deferrable && live !== undefined && mayWrite(live.role)) return { ...live, unconfirmed: true }

    const user = await this.users.findUser(name)
    if (user && live && live.passwordHash === user.passwordHash) return user

    // An unknown user is checked against the dummy exactly as a user against their hash, by the
    // same key, so concurrent identical requests share one hash in both cases.
    const against = user?.passwordHash ?? (await dummyHash(this.#cost))
    // A check in flight counts only for the same stored hash: after a password change, a check
    // begun against the old hash must not vouch for the new one.
    const flight = `${key}\0${against}`
    let check = this.#inFlight.get(flight)
    const joined = check !== undefined
    if (!check) {
      check = this.#check(keys, user && name, against, password)
      this.#inFlight.set(flight, check)
      void check.finally(() => this.#inFlight.delete(flight)).catch(() => {})
    }
    const outcome = await check
    // Every refused request counts, also one that shared another's hash (the check counted itself).
    if (!outcome.ok && joined) await this.options.attempts?.take(keys)
    if (!user || !outcome.ok) return undefined
    const current = outcome.upgraded ? { ...user, passwordHash: outcome.upgraded } : user
    this.#remember(key, current)
    return current
  }

  /**
   * Argon2id computations begun (checks and upgrades). Each holds PASSWORD_HASH_MEMORY_KIB of
   * memory while it runs, at most `concurrency` at once: what makes the resident set jump.
   */
  get passwordHashes(): number {
    return this.#hashes
  }

  #counted<T>(hashing: Promise<T>): Promise<T> {
    this.#hashes++
    return hashing
  }

  /** One hash computation, counted as an attempt until it succeeds; `name` when the user exists. */
  async #check(
    keys: readonly string[],
    name: string | undefined,
    against: string,
    password: string,
  ): Promise<Outcome> {
    const attempts = this.options.attempts
    let ticket: Ticket = []
    if (attempts) {
      const taken = await attempts.take(keys)
      if ('retryAfterSeconds' in taken) throw new TooManyAttempts(taken.retryAfterSeconds, attempts.policy)
      ticket = taken.ticket
    }
    let ok: boolean
    try {
      ok = await this.#hashing.run(() => this.#counted(this.#passwords.verify(against, password)))
    } catch (error) {
      // Never checked (`overloaded`): not a failed attempt.
      await attempts?.giveBack(ticket)
      throw error
    }
    if (ok) await attempts?.giveBack(ticket)
    if (!ok || name === undefined || !needsRehash(against, this.#cost)) return { ok }
    return { ok, upgraded: await this.#upgrade(name, against, password) }
  }

  async #upgrade(name: string, stored: string, password: string): Promise<string | undefined> {
    try {
      const upgraded = await this.#hashing.run(() =>
        this.#counted(this.#passwords.hash(password, this.#cost)),
      )
      return (await this.users.replacePasswordHash(name, stored, upgraded)) ? upgraded : undefined
    } catch (error) {
      this.options.onRehashError?.(error)
      return undefined
    }
  }

  #remember(key: string, user: User) {
    if (this.options.ttlMs <= 0) return
    const max = this.options.maxEntries ?? 10_000
    // Map keeps insertion order: dropping the first entries drops the oldest.
    while (this.#remembered.size >= max) {
      const oldest = this.#remembered.keys().next().value
      if (oldest === undefined) break
      this.#remembered.delete(oldest)
    }
    this.#remembered.delete(key)
    this.#remembered.set(key, { user, expiresAt: this.#now() + this.options.ttlMs })
  }
}

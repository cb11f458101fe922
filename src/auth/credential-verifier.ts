// Checks a user name and password against the store. A memory-hard hash on every write would cap
// write throughput at a few dozen per second per core, so successful checks are remembered:
// - keyed by an HMAC (process-random key) of name and password, so the cache never holds a
//   password or anything that could be brute-forced offline without that key;
// - valid only while the user's stored hash is the one verified against (so a password change,
//   role change or removal through any instance takes effect at the next request), and for a short TTL;
// - concurrent misses for the same credentials share one hash computation (single-flight).
import { createHmac, randomBytes } from 'node:crypto'
import type { User } from '../domain/types.ts'
import { Limiter } from './limiter.ts'
import { dummyHash, verifyPassword } from './passwords.ts'

export interface UserSource {
  findUser(name: string): Promise<User | undefined>
}

interface Remembered {
  readonly passwordHash: string
  readonly expiresAt: number
}

export class CredentialVerifier {
  readonly #key = randomBytes(32)
  readonly #remembered = new Map<string, Remembered>()
  readonly #inFlight = new Map<string, Promise<boolean>>()
  readonly #hashing: Limiter

  constructor(
    private readonly users: UserSource,
    private readonly options: {
      ttlMs: number
      maxEntries?: number
      concurrency?: number
      maxWaiting?: number
    },
  ) {
    this.#hashing = new Limiter(options.concurrency ?? 2, options.maxWaiting ?? 256)
  }

  /** The user, when the password is theirs; undefined otherwise (unknown user or wrong password). */
  async verify(name: string, password: string): Promise<User | undefined> {
    const user = await this.users.findUser(name)
    if (!user) {
      // Same work as for a real user, so response time does not tell who exists.
      await this.#hashing.run(async () => verifyPassword(await dummyHash(), password))
      return undefined
    }
    const key = createHmac('sha256', this.#key).update(name).update('\0').update(password).digest('base64url')
    const hit = this.#remembered.get(key)
    if (hit && hit.passwordHash === user.passwordHash && hit.expiresAt > Date.now()) return user

    // A check in flight counts only for the same stored hash: after a password change, a check
    // begun against the old hash must not vouch for the new one.
    const flight = `${key}\0${user.passwordHash}`
    let check = this.#inFlight.get(flight)
    if (!check) {
      check = this.#hashing.run(() => verifyPassword(user.passwordHash, password))
      this.#inFlight.set(flight, check)
      void check.finally(() => this.#inFlight.delete(flight)).catch(() => {})
    }
    if (!(await check)) return undefined
    this.#remember(key, user.passwordHash)
    return user
  }

  #remember(key: string, passwordHash: string) {
    if (this.options.ttlMs <= 0) return
    const max = this.options.maxEntries ?? 10_000
    // Map keeps insertion order: dropping the first entries drops the oldest.
    while (this.#remembered.size >= max) {
      const oldest = this.#remembered.keys().next().value
      if (oldest === undefined) break
      this.#remembered.delete(oldest)
    }
    this.#remembered.delete(key)
    this.#remembered.set(key, { passwordHash, expiresAt: Date.now() + this.options.ttlMs })
  }
}

// API keys remembered from earlier requests, for writes that confirm the key in their own
// statement (http/signature-verify.ts with `deferrable`): such a write signed by a remembered key
// is verified against the remembered row, without a lookup, and its statement requires the key to
// be still unrevoked, an editor's, with the same sealed secret (store: SignatureCheck), or writes
// nothing; then the request is authenticated again in full. So a revoked key is refused at its
// next write on every instance, as on a read, which always looks the key up.
//
// Only editors' unrevoked keys are remembered (a reader's key must be refused 403 after a lookup,
// and may have become an editor's since), for a short TTL, sealed as stored: the secret is opened
// for each request, as it is after a lookup. A signature that does not match a remembered key
// still costs the lookup, so that a refusal's time does not tell which keys wrote lately.

import { mayWrite } from '../domain/types.ts'
import type { StoredApiKey } from '../store/event-store.ts'

interface Remembered {
  readonly key: StoredApiKey
  readonly expiresAt: number
}

export class RememberedKeys {
  readonly #keys = new Map<string, Remembered>()

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The key as last looked up, while remembered. */
  recall(id: string): StoredApiKey | undefined {
    const remembered = this.#keys.get(id)
    if (!remembered) return undefined
    if (remembered.expiresAt > this.now()) return remembered.key
    this.#keys.delete(id)
    return undefined
  }

  /** Remembers a key just looked up and checked; forgets it when it may not write. */
  remember(key: StoredApiKey): void {
    this.#keys.delete(key.id)
    if (this.ttlMs <= 0 || key.revokedAt !== undefined || !mayWrite(key.role)) return
    // Map keeps insertion order: dropping the first entries drops the oldest.
    while (this.#keys.size >= this.maxEntries) {
      const oldest = this.#keys.keys().next().value
      if (oldest === undefined) break
      this.#keys.delete(oldest)
    }
    this.#keys.set(key.id, { key, expiresAt: this.now() + this.ttlMs })
  }

  forget(id: string): void {
    this.#keys.delete(id)
  }
}

// API keys remembered from earlier requests, for writes that confirm the key in their own
// statement (http/signature-verify.ts with `deferrable`): such a write signed by a remembered key
// is verified against the remembered row, without a lookup, and its statement requires the key to
// be still unrevoked, an editor's, with the same sealed secret (store: SignatureCheck), or writes
// nothing; then the request is authenticated again in full. So a revoked key is refused at its
// next write on every instance, as on a read, which always looks the key up.
//
// Only editors' unrevoked keys are remembered (a reader's key must be refused 403 after a lookup,
// and may have become an editor's since), for a short TTL, with their HMAC key as a KeyObject
// (auth/api-key-secrets.ts openSigningKey). Opening the sealed secret again on every write was
// ~40 µs of a signed PUT on the AMD machine (AES-GCM's set-up and a KeyObject made anew, in a
// profile). Keeping the opened key exposes nothing more: its material lives outside the JavaScript
// heap (no heap snapshot holds it), and whoever can read the process's memory finds
// KEY_ENCRYPTION_KEY there anyway, which opens every sealed secret. The row it came from stays
// the judge: the write's statement requires the same sealed secret, unrevoked, an editor's.
// A signature that does not match a remembered key still costs the lookup, so that a refusal's
// time does not tell which keys wrote lately.

import type { KeyObject } from 'node:crypto'
import { mayWrite } from '../domain/types.ts'
import type { StoredApiKey } from '../store/event-store.ts'

export interface RememberedKey {
  /** The key's row as last looked up. */
  readonly key: StoredApiKey
  /** Its secret, opened: the HMAC key. */
  readonly signingKey: KeyObject
}

interface Remembered extends RememberedKey {
  readonly expiresAt: number
}

export class RememberedKeys {
  readonly #keys = new Map<string, Remembered>()

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The key as last looked up, and its opened secret, while remembered. */
  recall(id: string): RememberedKey | undefined {
    const remembered = this.#keys.get(id)
    if (!remembered) return undefined
    if (remembered.expiresAt > this.now()) return remembered
    this.#keys.delete(id)
    return undefined
  }

  /** Remembers a key just looked up and checked, with its opened secret; forgets it when it may not write. */
  remember(key: StoredApiKey, signingKey: KeyObject): void {
    this.#keys.delete(key.id)
    if (this.ttlMs <= 0 || key.revokedAt !== undefined || !mayWrite(key.role)) return
    // Map keeps insertion order: dropping the first entries drops the oldest.
    while (this.#keys.size >= this.maxEntries) {
      const oldest = this.#keys.keys().next().value
      if (oldest === undefined) break
      this.#keys.delete(oldest)
    }
    this.#keys.set(key.id, { key, signingKey, expiresAt: this.now() + this.ttlMs })
  }

  forget(id: string): void {
    this.#keys.delete(id)
  }
}

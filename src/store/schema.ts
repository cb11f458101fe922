// Row types as Kysely sees them. They never leave the store: rows become domain objects in rows.ts.
import type { Generated } from 'kysely'

export interface Database {
  locations: { id: Generated<number>; name: string; address: string; version: Generated<number> }
  events: {
    id: Generated<number>
    title: string
    /** `title` folded by domain/event-filter.ts foldTitle, written with it by every write. */
    title_folded: string
    /** Epoch milliseconds, UTC. */
    starts_at: number
    location_id: number
    version: Generated<number>
  }
  users: { id: Generated<number>; name: string; role: string; password_hash: string }
  meta: { key: string; value: string }
  /** Counts kept by the writes themselves, each spread over shards (event-count.ts). */
  counters: { name: string; shard: number; value: number }
  /** Events per date bucket, kept by triggers (event-buckets.ts). */
  event_buckets: { bucket: number; shard: number; count: number }
  /** POST /events responses remembered by Idempotency-Key, with the event as first created. */
  idempotency_keys: {
    principal: string
    key: string
    fingerprint: string
    event_id: number
    title: string
    starts_at: number
    location_id: number
    version: number
    /** Epoch milliseconds. */
    created_at: number
  }
  /** API keys for request signing; the secret only sealed (auth/api-key-secrets.ts). */
  api_keys: {
    id: string
    name: string
    role: string
    sealed_secret: string
    /** Epoch milliseconds. */
    created_at: number
    revoked_at: number | null
  }
  /** `(keyid, nonce)` pairs of accepted signatures, remembered until they could no longer be replayed. */
  signature_nonces: { key_id: string; nonce: string; expires_at: number }
  /** Committed changes of events, numbered in commit order (change-log.ts); event columns null for `reset`. */
  change_log: {
    /** Null until a reader numbers the change (flavour.changeNumbering `by-readers`). */
    seq: number | null
    /** The order changes were logged in; only where readers number them. */
    entry: Generated<number>
    kind: string
    event_id: number | null
    title: string | null
    starts_at: number | null
    location_id: number | null
    version: number | null
    /** Epoch milliseconds. */
    changed_at: number
  }
}

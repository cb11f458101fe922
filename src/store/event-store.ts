// The one interface the HTTP layer and the CLI use to reach the data. Implementations differ only
// in their dialect (store/dialects/); everything SQL stays in this folder.
import type { Change, ChangeLogBounds } from '../domain/change.ts'
import type {
  CredentialCheck,
  Event,
  EventChanges,
  EventFilter,
  Location,
  LocationChanges,
  Page,
  Precondition,
  Role,
  User,
} from '../domain/types.ts'

export interface NewEvent {
  readonly title: string
  readonly date: number
  readonly locationId: number
}

export interface IdempotencyKey {
  /** Keys are scoped to the user who sent them. */
  readonly principal: string
  readonly key: string
  /** Identifies the request content; a retry must carry the same. */
  readonly fingerprint: string
  /** How long a key is remembered, in ms. */
  readonly lifetimeMs: number
}

export interface NewLocation {
  readonly name: string
  readonly address: string
}

export interface ImportLocation extends NewLocation {
  readonly events: readonly { readonly title: string; readonly date: number }[]
}

export interface BackupReport {
  /** Size of the copy in database pages, and in bytes. */
  readonly pages: number
  readonly bytes: number
}

/** An API key: a principal of its own with a name and a role, used to sign requests. */
export interface ApiKey {
  /** Public, random (`k_…`): the `keyid` of its signatures. */
  readonly id: string
  readonly name: string
  readonly role: Role
  /** Epoch milliseconds. */
  readonly createdAt: number
  /** Epoch milliseconds; a revoked key signs nothing any more. */
  readonly revokedAt: number | undefined
}

/** A key with its secret as stored: sealed under KEY_ENCRYPTION_KEY (auth/api-key-secrets.ts). */
export interface StoredApiKey extends ApiKey {
  readonly sealedSecret: string
}

export interface PoolStats {
  readonly total: number
  readonly idle: number
  readonly waiting: number
}

/**
 * The costly reads, run apart from the cheap ones (SQLite files: reader threads,
 * dialects/sqlite-readers.ts; PostgreSQL: a bulkhead and a pool of their own, postgres-costly.ts).
 * Counts are since the store opened.
 */
export interface ReaderStats {
  /**
   * Reads refused because they did not finish within the read budget (on PostgreSQL, mostly
   * statements the server cancelled at the budget's statement_timeout).
   */
  readonly overBudget: number
  /** Reader threads that stopped unexpectedly and were replaced. */
  readonly crashed: number
  /** Reads waiting now for a reader (a thread, or a connection of the costly reads' share). */
  readonly queued: number
  /** Reads that found every reader busy and waited. */
  readonly waits: number
  /** The time all of those waited, in ms. */
  readonly waitedMs: number
  /** Reads refused because no reader freed within the wait allowed (PostgreSQL's queue limit). */
  readonly refused: number
}

export interface EventStore {
  /**
   * One page of the events the filter finds (all without one), in date-then-id order, and how many
   * it finds, read as one consistent snapshot.
   */
  listEvents(page: Page, filter?: EventFilter): Promise<{ total: number; events: Event[] }>
  getEvent(id: number): Promise<Event | undefined>
  /** Fails with `invalid_fields` when the location does not exist. */
  createEvent(event: NewEvent): Promise<Event>
  /**
   * Creates the event unless `key` was used within its lifetime: then returns the event as it was
   * first created (`replayed`), or fails with `idempotency_key_reused` when the fingerprint of the
   * request differs. Concurrent calls with one key, through any instance, create at most one event.
   */
  createEventOnce(event: NewEvent, key: IdempotencyKey): Promise<{ event: Event; replayed: boolean }>
  /** Deletes the idempotency keys created before that instant (epoch ms); returns how many. */
  forgetIdempotencyKeys(createdBefore: number): Promise<number>
  /**
   * Applies the changes only if the precondition (If-Match and If-None-Match) holds at the moment
   * of writing: one conditional statement, so of concurrent writers with the same ETag exactly one
   * wins. Fails with `not_found` when there is no such event, whatever the precondition (RFC 9110
   * §13.2.1), else with `precondition_failed`. An empty change keeps the version (and the ETag).
   * With `asUser`, the same statement also requires that user to be still an editor with that
   * password hash; when they are not, nothing is written and it fails with CredentialsChanged
   * (before any `not_found` or `precondition_failed`).
   */
  updateEvent(
    id: number,
    changes: EventChanges,
    precondition?: Precondition,
    asUser?: CredentialCheck,
  ): Promise<Event>
  /** Deletes the event on the same terms as updateEvent: `not_found`, or `precondition_failed`. */
  deleteEvent(id: number, precondition?: Precondition): Promise<void>

  /** One page of locations in id order and the total, read as one consistent snapshot. */
  listLocations(page: Page): Promise<{ total: number; locations: Location[] }>

  // The change log (store/change-log.ts): every committed event write, numbered in commit order.
  // Creates, updates and deletes are logged in their own transaction; an import logs one `reset`.

  /** The changes numbered above `after`, in order, at most `limit`. */
  changesAfter(after: number, limit: number): Promise<Change[]>
  changeLogBounds(): Promise<ChangeLogBounds>
  /** Forgets changes older than `before` (epoch ms) and all but the newest `keep`; returns how many. */
  trimChangeLog(before: number, keep: number): Promise<number>
  /**
   * Calls `wake` whenever changes may have been committed, by this process at once, by others
   * soon (PostgreSQL: notifications; SQLite: a poll); returns how to stop.
   */
  watchChanges(wake: () => void): () => Promise<void>

  getLocation(id: number): Promise<Location | undefined>
  /** The locations among `ids` that exist, in id order: one read for a page of events (≤ 100 ids). */
  getLocations(ids: readonly number[]): Promise<Location[]>
  createLocation(location: NewLocation): Promise<Location>
  /** A location with exactly this name and address (the oldest, when there are several). */
  findLocation(location: NewLocation): Promise<Location | undefined>
  /** Changes the location on the same terms as updateEvent. */
  updateLocation(id: number, changes: LocationChanges, precondition?: Precondition): Promise<Location>
  /**
   * Deletes the location on the same terms as deleteEvent, and fails with `in_use` (saying how
   * many) while events take place there. An event written there at the same time either counts
   * or fails with `invalid_fields` as for an unknown location: no event is ever left without one.
   */
  deleteLocation(id: number, precondition?: Precondition): Promise<void>

  findUser(name: string): Promise<User | undefined>
  /** Every user, ordered by name (by code point, the same on every store). */
  listUsers(): Promise<User[]>
  /** Creates the user, or replaces the role and password of an existing one. */
  putUser(name: string, role: Role, passwordHash: string): Promise<User>
  /** Replaces the user's password hash only while it is still `expected`; returns whether it did. */
  replacePasswordHash(name: string, expected: string, replacement: string): Promise<boolean>
  /** Returns false when there was no such user. */
  removeUser(name: string): Promise<boolean>
  /** Creates `name` only when no user exists at all; returns whether it did (safe to race). */
  createFirstUser(name: string, role: Role, passwordHash: string): Promise<boolean>

  /** Adds a key (its id is new: made of 96 random bits). */
  createApiKey(key: Omit<StoredApiKey, 'revokedAt'>): Promise<ApiKey>
  /** The key with its sealed secret, revoked or not; read from the database on every call. */
  findApiKey(id: string): Promise<StoredApiKey | undefined>
  /** Every key, oldest first, without secrets. */
  listApiKeys(): Promise<ApiKey[]>
  /** Marks the key revoked at `at` (epoch ms), or keeps its first revocation; false when there is no such key. */
  revokeApiKey(id: string, at: number): Promise<boolean>
  /**
   * Remembers that a signature with this `(keyId, nonce)` was accepted, until `expiresAt` (epoch
   * ms); false when the pair is remembered already, so that of concurrent requests carrying one
   * pair, through any instance, exactly one gets true.
   */
  rememberNonce(keyId: string, nonce: string, expiresAt: number): Promise<boolean>
  /** Forgets the pairs that expired before that instant (epoch ms); returns how many. */
  forgetNonces(expiredBefore: number): Promise<number>

  /**
   * Loads locations with their events beside live writes, as the dialect commits an import
   * (store/import-events.ts: one transaction, or short chunks); reports progress in events.
   */
  importLocations(
    locations: Iterable<ImportLocation>,
    onProgress?: (events: number) => void,
  ): Promise<{ locations: number; events: number }>
  /**
   * Runs once per database, however many processes start together: returns true to the one
   * caller that initialised it (and so should seed it).
   */
  initialiseOnce(fill: () => readonly ImportLocation[]): Promise<boolean>

  /**
   * Where the store can (an SQLite file): copies the database to the new file `destination` while
   * it keeps serving, as one consistent snapshot; fails if `destination` exists.
   */
  readonly backup?: (destination: string) => Promise<BackupReport>

  /** Connection pool figures for /metrics, where the store has a pool. */
  poolStats?(): PoolStats | undefined
  /** Figures of the reads run off the event loop, where the store has such reads. */
  readerStats?(): ReaderStats | undefined

  /** Throws when the database cannot be reached. */
  ping(): Promise<void>
  close(): Promise<void>
}

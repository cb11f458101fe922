// The EventStore over Kysely, shared by every dialect: one repository per aggregate (repositories/)
// over one context (repositories/context.ts), composed here so that callers see one interface. A
// dialect supplies the connection, how a write transaction begins, and its SQL flavour
// (dialect-connection.ts); where the dialects must differ in how writes reach the change log, that
// has one home (change-numbering.ts).
import { sql } from 'kysely'
import type {
  CredentialCheck,
  EventChanges,
  EventFilter,
  LocationChanges,
  Page,
  Precondition,
  Role,
} from '../domain/types.ts'
import { changeNumberings } from './change-numbering.ts'
import type { DialectConnection } from './dialect-connection.ts'
import type {
  BackupReport,
  EventStore,
  IdempotencyKey,
  ImportLocation,
  NewEvent,
  NewLocation,
  PoolStats,
  ReaderStats,
  ReplicaStats,
  StoredApiKey,
} from './event-store.ts'
import { migrations } from './migrations/index.ts'
import { ApiKeyRepository } from './repositories/api-keys.ts'
import { ChangeLogRepository } from './repositories/changes.ts'
import { StoreContext } from './repositories/context.ts'
import { EventRepository } from './repositories/events.ts'
import { ImportRepository } from './repositories/import.ts'
import { LocationRepository } from './repositories/locations.ts'
import { RequestKeyRepository } from './repositories/request-keys.ts'
import { UserRepository } from './repositories/users.ts'

export type { DialectConnection }

export class KyselyStore implements EventStore {
  readonly #ctx: StoreContext
  readonly #events: EventRepository
  readonly #locations: LocationRepository
  readonly #changes: ChangeLogRepository
  readonly #users: UserRepository
  readonly #apiKeys: ApiKeyRepository
  readonly #requestKeys: RequestKeyRepository
  readonly #import: ImportRepository

  constructor(private readonly dialect: DialectConnection) {
    const ctx = new StoreContext(dialect)
    const numbering = changeNumberings[dialect.flavour.changeNumbering]
    this.#ctx = ctx
    this.#events = new EventRepository(ctx, numbering)
    this.#locations = new LocationRepository(ctx)
    this.#changes = new ChangeLogRepository(ctx, numbering)
    this.#users = new UserRepository(ctx)
    this.#apiKeys = new ApiKeyRepository(ctx)
    this.#requestKeys = new RequestKeyRepository(ctx)
    this.#import = new ImportRepository(ctx, numbering)
  }

  /** Applies every pending migration, all in one transaction or none, under a lock (see the dialects). */
  async migrate(): Promise<string[]> {
    const provider = migrations(this.dialect.flavour)
    const { error, results = [] } = await this.dialect.migrate(provider)
    if (error) throw error
    return results.filter((r) => r.status === 'Success').map((r) => r.migrationName)
  }

  // Events (repositories/events.ts).

  listEvents(page: Page, filter?: EventFilter) {
    return this.#events.list(page, filter)
  }
  getEvent(id: number) {
    return this.#events.get(id)
  }
  createEvent(event: NewEvent) {
    return this.#events.create(event)
  }
  createEventOnce(event: NewEvent, key: IdempotencyKey) {
    return this.#events.createOnce(event, key)
  }
  updateEvent(id: number, changes: EventChanges, precondition?: Precondition, asUser?: CredentialCheck) {
    return this.#events.update(id, changes, precondition, asUser)
  }
  deleteEvent(id: number, precondition?: Precondition) {
    return this.#events.delete(id, precondition)
  }

  // The change log (repositories/changes.ts), read by the change feed (feed/).

  changesAfter(after: number, limit: number) {
    return this.#changes.after(after, limit)
  }
  changeLogBounds() {
    return this.#changes.bounds()
  }
  trimChangeLog(before: number, keep: number) {
    return this.#changes.trim(before, keep)
  }
  watchChanges(wake: () => void): () => Promise<void> {
    return this.#changes.watch(wake)
  }

  // Locations (repositories/locations.ts).

  listLocations(page: Page) {
    return this.#locations.list(page)
  }
  getLocation(id: number) {
    return this.#locations.get(id)
  }
  getLocations(ids: readonly number[]) {
    return this.#locations.getMany(ids)
  }
  createLocation(location: NewLocation) {
    return this.#locations.create(location)
  }
  findLocation(location: NewLocation) {
    return this.#locations.find(location)
  }
  updateLocation(id: number, changes: LocationChanges, precondition?: Precondition) {
    return this.#locations.update(id, changes, precondition)
  }
  deleteLocation(id: number, precondition?: Precondition) {
    return this.#locations.delete(id, precondition)
  }

  // Users (repositories/users.ts).

  findUser(name: string) {
    return this.#users.find(name)
  }
  listUsers() {
    return this.#users.list()
  }
  putUser(name: string, role: Role, passwordHash: string) {
    return this.#users.put(name, role, passwordHash)
  }
  replacePasswordHash(name: string, expected: string, replacement: string) {
    return this.#users.replacePasswordHash(name, expected, replacement)
  }
  removeUser(name: string) {
    return this.#users.remove(name)
  }
  createFirstUser(name: string, role: Role, passwordHash: string) {
    return this.#users.createFirst(name, role, passwordHash)
  }

  // API keys (repositories/api-keys.ts), nonces and idempotency keys (repositories/request-keys.ts).

  createApiKey(key: Omit<StoredApiKey, 'revokedAt'>) {
    return this.#apiKeys.create(key)
  }
  findApiKey(id: string) {
    return this.#apiKeys.find(id)
  }
  listApiKeys() {
    return this.#apiKeys.list()
  }
  revokeApiKey(id: string, at: number) {
    return this.#apiKeys.revoke(id, at)
  }
  rememberNonce(keyId: string, nonce: string, expiresAt: number) {
    return this.#requestKeys.rememberNonce(keyId, nonce, expiresAt)
  }
  forgetNonces(expiredBefore: number) {
    return this.#requestKeys.forgetNonces(expiredBefore)
  }
  forgetIdempotencyKeys(createdBefore: number) {
    return this.#requestKeys.forgetIdempotencyKeys(createdBefore)
  }

  // The bulk load (repositories/import.ts).

  importLocations(locations: Iterable<ImportLocation>, onProgress?: (events: number) => void) {
    return this.#import.importLocations(locations, onProgress)
  }
  initialiseOnce(fill: () => readonly ImportLocation[]) {
    return this.#import.initialiseOnce(fill)
  }

  /** `ers recount`: counts from the rows, repairs what differed, in one write (recount.ts). */
  recount() {
    return this.#events.recount()
  }

  // The database as a whole.

  /** Present only where the dialect can copy its database while it serves (an SQLite file). */
  get backup(): ((destination: string) => Promise<BackupReport>) | undefined {
    return this.dialect.backup?.bind(this.dialect)
  }

  poolStats(): PoolStats | undefined {
    return this.dialect.poolStats?.()
  }

  readerStats(): ReaderStats | undefined {
    return this.dialect.readerStats?.()
  }

  replicaStats(): ReplicaStats | undefined {
    return this.dialect.replicaStats?.()
  }

  async ping() {
    await this.#ctx.guard(() => sql`select 1`.execute(this.#ctx.db))
  }

  async close() {
    await this.#ctx.close()
  }
}

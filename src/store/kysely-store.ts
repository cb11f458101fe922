// The EventStore over Kysely, shared by every dialect. A dialect supplies the connection, how a
// write transaction begins, and its SQL flavour.
import { setTimeout } from 'node:timers/promises'
import { type CompiledQuery, type Kysely, sql } from 'kysely'
import type { MigrationProvider, MigrationResultSet } from 'kysely/migration'
import type { ChangeKind } from '../domain/change.ts'
import { isFiltered } from '../domain/event-filter.ts'
import { offsetOf } from '../domain/paging.ts'
import type {
  CredentialCheck,
  Event,
  EventChanges,
  EventFilter,
  LocationChanges,
  Page,
  Precondition,
  Role,
} from '../domain/types.ts'
import {
  appendChange,
  changeLogBounds,
  changeLogTopic,
  changesAfter,
  numberChanges,
  trimChanges,
} from './change-log.ts'
import { BucketRowsEstimate, deepPageOffset, prefersBuckets } from './event-buckets.ts'
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
import type { Executor } from './executor.ts'
import { filteredPage } from './filtered-page.ts'
import type { SqlFlavour } from './flavour.ts'
import { type HotQueries, hotQueries } from './hot-queries.ts'
import { importFrom, importStart } from './import-cursor.ts'
import { importEvents } from './import-events.ts'
import { naming } from './location-references.ts'
import { migrations } from './migrations/index.ts'
import { recount } from './recount.ts'
import { toApiKey, toEvent, toLocation, toUser } from './rows.ts'
import type { Database } from './schema.ts'
import {
  deleteLocation,
  deleteVersioned,
  insertEvent,
  insertEventLogged,
  insertEventOnce,
  requireLocation,
  requireStorable,
  titleColumns,
  updateEventLogged,
  updateVersioned,
} from './writes.ts'

/** Runs of a write that lost to a concurrent one (#retryingConflicts), in all, and the base wait. */
const conflictAttempts = 3
const conflictBackoffMs = 20

export interface DialectConnection {
  readonly db: Kysely<Database>
  readonly flavour: SqlFlavour
  /**
   * Runs `work` in one transaction. Only some dialects serialise writers (SQLite holds the write
   * lock from the first statement; PostgreSQL runs READ COMMITTED): a check-then-write must be
   * one conditional statement, rest on a unique key, or take `exclusive` first.
   */
  write<T>(work: (trx: Executor) => Promise<T>): Promise<T>
  /**
   * Inside `write`, waits for and holds an exclusive lock on `topic` until the transaction ends.
   * Absent where `write` already serialises every writer (SQLite's BEGIN IMMEDIATE).
   */
  exclusive?(trx: Executor, topic: string): Promise<void>
  /**
   * Runs every pending migration of `provider` as one unit, taking whatever lock keeps two
   * processes from migrating at once; on failure returns the error with nothing applied.
   */
  migrate(provider: MigrationProvider): Promise<MigrationResultSet>
  /**
   * After a write that logged a change has committed, tells every process watching (`watch`), in
   * the background; a lost notification is made up by `watch`'s periodic wake. Absent where
   * `watch` polls instead.
   */
  notify?(): void
  /**
   * Calls `wake` whenever another process (another instance, the CLI) may have committed a change,
   * and now and then regardless; returns how to stop.
   */
  watch?(wake: () => void): () => Promise<void>
  /** Turns a driver error into a DomainError where it means something to a client. */
  translate(error: unknown): unknown
  /**
   * True when a write failed only because of the transactions beside it (PostgreSQL: a deadlock
   * or a serialization failure), so that the same work, run again whole, may well succeed.
   */
  isConflict?(error: unknown): boolean
  /**
   * Runs a read at once, past Kysely, where the dialect can do that safely (SQLite's synchronous
   * driver); undefined when it cannot now, and the read goes through Kysely.
   */
  readNow?<R>(query: CompiledQuery<R>): R[] | undefined
  /**
   * Runs a read on a connection of the dialect's own pool, past Kysely's executor (its layers of
   * async functions were ~5 µs of CPU per PostgreSQL read); absent where reads go through Kysely.
   */
  readPooled?<R>(query: CompiledQuery<R>): Promise<R[]>
  /**
   * Runs a plain read (of events and locations, outside a write: store/read-target.ts) where the
   * dialect chooses, a replica when it has a fresh one (postgres-replicas.ts); absent: readPooled.
   */
  readPlain?<R>(query: CompiledQuery<R>): Promise<R[]>
  /** Where plain reads went, where the dialect reads from replicas. */
  replicaStats?(): ReplicaStats
  /**
   * Runs a read whose cost no index bounds apart from the cheap reads, under a time budget
   * (`too_costly` past it): SQLite files in a reader thread, off the event loop; PostgreSQL on a
   * bounded share of connections of its own. Absent where such reads cannot leave the cheap
   * reads' way (SQLite in memory).
   */
  readCostly?<R>(query: CompiledQuery<R>): Promise<R[]>
  /** Figures of the costly reads, where the dialect runs them apart. */
  readerStats?(): ReaderStats
  /**
   * After a bulk load has committed, what keeps reads as fast as before it, where the dialect
   * needs something done.
   */
  afterBulkLoad?(): Promise<void>
  /** Connection pool figures, where the dialect has a pool. */
  poolStats?(): PoolStats
  /** Copies the database to a new file while it serves, where the dialect can (see EventStore). */
  backup?(destination: string): Promise<BackupReport>
  close(): Promise<void>
}

export class KyselyStore implements EventStore {
  readonly #db: Kysely<Database>
  readonly #hot: HotQueries
  readonly #bucketRows: BucketRowsEstimate
  /** Told after every committed event write of this process (the change feed's reader). */
  readonly #watchers = new Set<() => void>()
  #stopWatching: (() => Promise<void>) | undefined
  constructor(private readonly dialect: DialectConnection) {
    this.#db = dialect.db
    this.#hot = hotQueries(dialect.db)
    this.#bucketRows = new BucketRowsEstimate(async () =>
      Number((await this.#db.executeQuery(this.#hot.bucketRows())).rows[0]?.rows ?? 0),
    )
  }

  /** Applies every pending migration, all in one transaction or none, under a lock (see the dialects). */
  async migrate(): Promise<string[]> {
    const provider = migrations(this.dialect.flavour)
    const { error, results = [] } = await this.dialect.migrate(provider)
    if (error) throw error
    return results.filter((r) => r.status === 'Success').map((r) => r.migrationName)
  }

  async listEvents(page: Page, filter: EventFilter = {}) {
    // A filter's page and count can cost as much as a scan of the table (a short `q`, a deep page
    // at a location): apart from the cheap reads, under a budget, where the dialect can
    // (docs/architecture.md, "Finding events").
    if (isFiltered(filter))
      return this.#guard(() =>
        filteredPage(this.#db, this.dialect.flavour, page, filter, this.dialect.readCostly),
      )
    return this.#guard(async () => {
      const offset = offsetOf(page)
      const fromBuckets =
        offset >= deepPageOffset &&
        prefersBuckets(offset, await this.#bucketRows.rows(), this.dialect.flavour.offsetRowsPerBucketRow)
      const { total, rows } = await this.#page(
        fromBuckets ? this.#hot.deepPage(offset, page.perPage, offset) : this.#hot.page(page.perPage, offset),
        this.#hot.total(),
      )
      return { total, events: rows.map(toEvent) }
    })
  }

  async listLocations(page: Page) {
    return this.#guard(async () => {
      const { total, rows } = await this.#page(
        this.#hot.locationPage(page.perPage, offsetOf(page)),
        this.#hot.locationTotal(),
      )
      return { total, locations: rows.map(toLocation) }
    })
  }

  /** A page whose rows each carry the total: one statement, so both come from one snapshot. */
  async #page<R extends { total: number }>(page: CompiledQuery<R>, total: CompiledQuery<{ total: number }>) {
    const rows = await this.#rows(page, true)
    // Past the last page there is no row to carry the total: ask for it alone.
    const first = rows[0] ?? (await this.#rows(total, true))[0]
    return { total: Number(first?.total ?? 0), rows }
  }

  getEvent(id: number) {
    return this.#hotRead(this.#hot.event(id), ([row]) => row && toEvent(row), true)
  }

  async createEvent(event: NewEvent) {
    // One statement where the dialect allows it, as the common edit below.
    if (this.dialect.flavour.changeNumbering === 'by-readers') {
      const created = await this.#guard(() =>
        this.#retryingConflicts(() => insertEventLogged(this.#db, event)),
      ).catch((error: unknown) => {
        throw naming(error, event.locationId)
      })
      this.#changed()
      return created
    }
    return this.#writeEvents(async (trx) => this.#logChange(trx, 'created', await insertEvent(trx, event)))
  }

  async createEventOnce(event: NewEvent, key: IdempotencyKey) {
    return this.#writeEvents(async (trx) => {
      // Same-key requests queue here (on SQLite every writer already does), so the second one
      // sees the first one's committed row.
      await this.dialect.exclusive?.(trx, `idempotency:${key.principal}:${key.key}`)
      const result = await insertEventOnce(trx, event, key)
      // A replay changes nothing.
      if (!result.replayed) await this.#logChange(trx, 'created', result.event)
      return result
    })
  }

  async updateEvent(
    id: number,
    changes: EventChanges,
    precondition?: Precondition,
    asUser?: CredentialCheck,
  ) {
    // A new location is checked first (and an empty patch logs nothing): those take the
    // transaction below; the common edit is one statement where the dialect allows it.
    if (
      this.dialect.flavour.changeNumbering === 'by-readers' &&
      changes.locationId === undefined &&
      Object.keys(changes).length > 0
    ) {
      requireStorable('/title', changes.title)
      const values = {
        ...(changes.title !== undefined && titleColumns(changes.title)),
        ...(changes.date !== undefined && { starts_at: changes.date }),
      }
      const event = toEvent(
        await this.#guard(() =>
          this.#retryingConflicts(() => updateEventLogged(this.#db, id, values, precondition, asUser)),
        ),
      )
      this.#changed()
      return event
    }
    return this.#writeEvents(async (trx) => {
      requireStorable('/title', changes.title)
      if (changes.locationId !== undefined) await requireLocation(trx, changes.locationId)
      const values = {
        ...(changes.title !== undefined && titleColumns(changes.title)),
        ...(changes.date !== undefined && { starts_at: changes.date }),
        ...(changes.locationId !== undefined && { location_id: changes.locationId }),
      }
      const event = toEvent(await updateVersioned(trx, 'events', id, values, precondition, asUser))
      // An empty merge patch changes nothing (the version stays): nothing to log.
      if (Object.keys(changes).length === 0) return event
      return this.#logChange(trx, 'updated', event)
    })
  }

  async deleteEvent(id: number, precondition?: Precondition) {
    await this.#writeEvents(async (trx) => {
      const row = await deleteVersioned(trx, 'events', id, precondition)
      await this.#logChange(trx, 'deleted', toEvent(row))
    })
  }

  // The change log (change-log.ts), read by the change feed (feed/).

  async changesAfter(after: number, limit: number) {
    await this.#numberChanges()
    return this.#guard(() => changesAfter(this.#db, after, limit))
  }

  async changeLogBounds() {
    await this.#numberChanges()
    return this.#guard(() => changeLogBounds(this.#db))
  }

  async trimChangeLog(before: number, keep: number) {
    // Numbered first, so that changes nobody has read yet are kept in bounds like the rest.
    await this.#numberChanges()
    return this.#write((trx) => trimChanges(trx, before, keep))
  }

  /** Where readers number the log (flavour.changeNumbering), numbers what has committed. */
  async #numberChanges() {
    if (this.dialect.flavour.changeNumbering !== 'by-readers') return
    await this.#write(async (trx) => {
      await this.dialect.exclusive?.(trx, changeLogTopic)
      await numberChanges(trx)
    })
  }

  watchChanges(wake: () => void): () => Promise<void> {
    this.#watchers.add(wake)
    this.#stopWatching ??= this.dialect.watch?.(() => this.#wakeWatchers())
    return async () => {
      this.#watchers.delete(wake)
      if (this.#watchers.size > 0) return
      const stop = this.#stopWatching
      this.#stopWatching = undefined
      await stop?.()
    }
  }

  async forgetIdempotencyKeys(createdBefore: number) {
    return this.#write(async (trx) => {
      const result = await trx
        .deleteFrom('idempotency_keys')
        .where('created_at', '<', createdBefore)
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    })
  }

  getLocation(id: number) {
    return this.#hotRead(this.#hot.location(id), ([row]) => row && toLocation(row), true)
  }

  async getLocations(ids: readonly number[]) {
    if (ids.length === 0) return []
    // One statement for a page's worth of ids (the HTML list names each event's location).
    const distinct = [...new Set(ids)]
    return this.#guard(async () => {
      const rows = await this.#rows(
        this.#db.selectFrom('locations').selectAll().where('id', 'in', distinct).orderBy('id').compile(),
        true,
      )
      return rows.map(toLocation)
    })
  }

  async createLocation(location: NewLocation) {
    return this.#write(async (trx) => {
      requireStorable('/name', location.name)
      requireStorable('/address', location.address)
      const values = { name: location.name, address: location.address }
      return toLocation(
        await trx.insertInto('locations').values(values).returningAll().executeTakeFirstOrThrow(),
      )
    })
  }

  async findLocation(location: NewLocation) {
    return this.#guard(async () => {
      const row = await this.#db
        .selectFrom('locations')
        .selectAll()
        .where('name', '=', location.name)
        .where('address', '=', location.address)
        .orderBy('id')
        .executeTakeFirst()
      return row && toLocation(row)
    })
  }

  async updateLocation(id: number, changes: LocationChanges, precondition?: Precondition) {
    return this.#write(async (trx) => {
      requireStorable('/name', changes.name)
      requireStorable('/address', changes.address)
      return toLocation(await updateVersioned(trx, 'locations', id, changes, precondition))
    })
  }

  async deleteLocation(id: number, precondition?: Precondition) {
    await this.#write((trx) => deleteLocation(trx, this.dialect.flavour, id, precondition))
  }

  findUser(name: string) {
    return this.#hotRead(this.#hot.user(name), ([row]) => row && toUser(row))
  }

  async listUsers() {
    return this.#guard(async () => {
      const rows = await this.#db.selectFrom('users').selectAll().execute()
      // Sorted here, by code point: SQL's ORDER BY follows each database's collation, and the
      // same users must list in the same order on every store.
      return rows.map(toUser).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    })
  }

  /** Present only where the dialect can copy its database while it serves (an SQLite file). */
  get backup(): ((destination: string) => Promise<BackupReport>) | undefined {
    return this.dialect.backup?.bind(this.dialect)
  }

  async putUser(name: string, role: Role, passwordHash: string) {
    return this.#write(async (trx) => {
      const row = await trx
        .insertInto('users')
        .values({ name, role, password_hash: passwordHash })
        .onConflict((oc) => oc.column('name').doUpdateSet({ role, password_hash: passwordHash }))
        .returningAll()
        .executeTakeFirstOrThrow()
      return toUser(row)
    })
  }

  async replacePasswordHash(name: string, expected: string, replacement: string) {
    return this.#write(async (trx) => {
      const result = await trx
        .updateTable('users')
        .set({ password_hash: replacement })
        .where('name', '=', name)
        .where('password_hash', '=', expected)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    })
  }

  async removeUser(name: string) {
    return this.#write(async (trx) => {
      const result = await trx.deleteFrom('users').where('name', '=', name).executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    })
  }

  async createFirstUser(name: string, role: Role, passwordHash: string) {
    return this.#write(async (trx) => {
      // Without it, two callers under READ COMMITTED could both see no user and insert two names.
      await this.dialect.exclusive?.(trx, 'first-user')
      const existing = await trx.selectFrom('users').select('id').limit(1).executeTakeFirst()
      if (existing) return false
      const inserted = await trx
        .insertInto('users')
        .values({ name, role, password_hash: passwordHash })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst()
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0
    })
  }

  async importLocations(locations: Iterable<ImportLocation>, onProgress?: (events: number) => void) {
    const counts = await importEvents(
      {
        flavour: this.dialect.flavour,
        write: (work) => this.#writeEvents(work),
        oneAtATime: (trx) => this.#oneImportAtATime(trx),
        logReset: (trx, events) => this.#logReset(trx, events),
      },
      locations,
      onProgress,
    )
    if (counts.events > 0) await this.#guard(async () => this.dialect.afterBulkLoad?.())
    return counts
  }

  async initialiseOnce(fill: () => readonly ImportLocation[]) {
    return this.#writeEvents(async (trx) => {
      const inserted = await trx
        .insertInto('meta')
        .values({ key: 'initialised_at', value: new Date().toISOString() })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst()
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false
      await this.#oneImportAtATime(trx)
      const batch = Math.floor(this.dialect.flavour.maxParameters / 4)
      const { counts } = await importFrom(trx, fill(), importStart, { batch })
      await this.#logReset(trx, counts.events)
      return true
    })
  }

  /** `ers recount`: counts from the rows, repairs what differed, in one write (recount.ts). */
  async recount() {
    return this.#write((trx) => recount(trx, this.dialect.flavour.rowLocks))
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
    await this.#guard(() => sql`select 1`.execute(this.#db))
  }

  async close() {
    this.#watchers.clear()
    await this.#stopWatching?.()
    await this.dialect.close()
  }

  /** Imports queue behind one another: one long transaction at a time (import-events.ts). */
  async #oneImportAtATime(trx: Executor) {
    await this.dialect.exclusive?.(trx, 'import')
  }

  #write<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    return this.#guard(() => this.#retryingConflicts(() => this.dialect.write(work)))
  }

  /**
   * Runs a write (a transaction, or one statement that is its own) again while it fails only for
   * a conflict with concurrent transactions (dialect.isConflict): PostgreSQL rolls the loser back
   * whole and its manual (§13.4) says to retry such a transaction from the start. At most
   * `conflictAttempts` in all, a short random wait between them so that the two do not meet
   * again in step; past the last, translate() makes the error a 503 with Retry-After.
   */
  async #retryingConflicts<T>(write: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write()
      } catch (error) {
        if (attempt >= conflictAttempts || !this.dialect.isConflict?.(error)) throw error
        await setTimeout(conflictBackoffMs * attempt * (0.5 + Math.random()))
      }
    }
  }

  /**
   * A write that may log changes: once it has committed, this process's feed reads the log, and
   * other processes' feeds are told.
   */
  async #writeEvents<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    const result = await this.#write(work)
    this.#changed()
    return result
  }

  /** After a change was committed: this process's feed reads the log, and other processes' are told. */
  #changed() {
    this.#wakeWatchers()
    this.dialect.notify?.()
  }

  #wakeWatchers() {
    for (const wake of this.#watchers) wake()
  }

  /**
   * Logs the change as the write's last step: where it is numbered in the write, the lock on the
   * log is held from here to the commit, so appends commit in number order (change-log.ts).
   */
  async #logChange(trx: Executor, kind: ChangeKind, event: Event): Promise<Event> {
    await this.#append(trx, { kind, event })
    return event
  }

  /** A bulk load adds one marker instead of a row per event: feeds tell clients to read again. */
  async #logReset(trx: Executor, events: number) {
    if (events > 0) await this.#append(trx, { kind: 'reset' })
  }

  async #append(trx: Executor, change: Parameters<typeof appendChange>[1]) {
    const numbered = this.dialect.flavour.changeNumbering === 'in-write'
    if (numbered) await this.dialect.exclusive?.(trx, changeLogTopic)
    await appendChange(trx, change, numbered)
  }

  /**
   * A hot read's rows: at once where the dialect can (readNow), else pooled or through Kysely;
   * a `plain` one where the dialect chooses (readPlain: a replica).
   */
  async #rows<R>(query: CompiledQuery<R>, plain = false): Promise<R[]> {
    const { readNow, readPooled, readPlain } = this.dialect
    const pooled = (plain && readPlain) || readPooled
    return readNow?.(query) ?? (pooled ? await pooled(query) : (await this.#db.executeQuery(query)).rows)
  }

  /**
   * A hot read answered from its rows: at once where the dialect can (readNow), one promise and
   * no await (four nested async functions were ~2 µs of a GET by id), else through Kysely; its
   * errors translated as #guard does.
   */
  #hotRead<R, T>(query: CompiledQuery<R>, answer: (rows: R[]) => T, plain = false): Promise<T> {
    let rows: R[] | undefined
    try {
      rows = this.dialect.readNow?.(query)
    } catch (error) {
      return Promise.reject(this.dialect.translate(error))
    }
    if (rows) return Promise.resolve(answer(rows))
    const pooled =
      plain && this.dialect.readPlain ? this.dialect.readPlain(query) : this.dialect.readPooled?.(query)
    if (pooled) {
      return pooled.then(answer, (error: unknown) => {
        throw this.dialect.translate(error)
      })
    }
    return this.#guard(async () => answer((await this.#db.executeQuery(query)).rows))
  }

  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      throw this.dialect.translate(error)
    }
  }

  // API keys and the nonces of signed requests (http/signature-auth.ts).

  async createApiKey(key: Omit<StoredApiKey, 'revokedAt'>) {
    return this.#write(async (trx) => {
      const row = await trx
        .insertInto('api_keys')
        .values({
          id: key.id,
          name: key.name,
          role: key.role,
          sealed_secret: key.sealedSecret,
          created_at: key.createdAt,
          revoked_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
      const { sealedSecret: _, ...apiKey } = toApiKey(row)
      return apiKey
    })
  }

  findApiKey(id: string) {
    return this.#hotRead(this.#hot.apiKey(id), ([row]) => row && toApiKey(row))
  }

  async listApiKeys() {
    return this.#guard(async () => {
      const rows = await this.#db
        .selectFrom('api_keys')
        .select(['id', 'name', 'role', 'created_at', 'revoked_at'])
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      return rows.map((row) => {
        const { sealedSecret: _, ...apiKey } = toApiKey({ ...row, sealed_secret: '' })
        return apiKey
      })
    })
  }

  async revokeApiKey(id: string, at: number) {
    return this.#write(async (trx) => {
      await trx
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .execute()
      const row = await trx.selectFrom('api_keys').select('id').where('id', '=', id).executeTakeFirst()
      return row !== undefined
    })
  }

  async rememberNonce(keyId: string, nonce: string, expiresAt: number) {
    // One statement, so no transaction around it: on PostgreSQL that is one round trip instead of
    // three. The primary key decides between concurrent inserts of one pair, on every store.
    return this.#guard(async () => {
      const inserted = await this.#db
        .insertInto('signature_nonces')
        .values({ key_id: keyId, nonce, expires_at: expiresAt })
        .onConflict((oc) => oc.columns(['key_id', 'nonce']).doNothing())
        .executeTakeFirst()
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0
    })
  }

  async forgetNonces(expiredBefore: number) {
    return this.#write(async (trx) => {
      const result = await trx
        .deleteFrom('signature_nonces')
        .where('expires_at', '<', expiredBefore)
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    })
  }
}

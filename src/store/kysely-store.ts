// The EventStore over Kysely, shared by every dialect. A dialect supplies the connection, how a
// write transaction begins, and its SQL flavour.
import { type Kysely, Migrator, sql, type Transaction } from 'kysely'
import { DomainError, invalidField } from '../domain/errors.ts'
import { offsetOf } from '../domain/paging.ts'
import type { EventChanges, Page, Precondition, Role } from '../domain/types.ts'
import type {
  EventStore,
  IdempotencyKey,
  ImportLocation,
  NewEvent,
  NewLocation,
  PoolStats,
} from './event-store.ts'
import type { SqlFlavour } from './flavour.ts'
import { migrations } from './migrations/index.ts'
import { toEvent, toLocation, toUser } from './rows.ts'
import type { Database } from './schema.ts'

export type Executor = Kysely<Database> | Transaction<Database>

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
  /** Turns a driver error into a DomainError where it means something to a client. */
  translate(error: unknown): unknown
  /** Connection pool figures, where the dialect has a pool. */
  poolStats?(): PoolStats
  close(): Promise<void>
}

export class KyselyStore implements EventStore {
  readonly #db: Kysely<Database>
  constructor(private readonly dialect: DialectConnection) {
    this.#db = dialect.db
  }

  /** Brings the schema to the newest version (the migrator takes a lock where the dialect has one). */
  async migrate(): Promise<string[]> {
    const migrator = new Migrator({ db: this.#db, provider: migrations(this.dialect.flavour) })
    const { error, results = [] } = await migrator.migrateToLatest()
    if (error) throw error
    return results.filter((r) => r.status === 'Success').map((r) => r.migrationName)
  }

  async listEvents(page: Page) {
    return this.#guard(async () => {
      // One statement, so the page and the total come from the same snapshot.
      const rows = await this.#db
        .selectFrom('events')
        .selectAll()
        .select((eb) => eb.selectFrom('events').select(eb.fn.countAll().as('n')).as('total'))
        .orderBy('starts_at')
        .orderBy('id')
        .limit(page.perPage)
        .offset(offsetOf(page))
        .execute()
      const total =
        rows.length > 0
          ? Number(rows[0]?.total)
          : Number(
              (
                await this.#db
                  .selectFrom('events')
                  .select((eb) => eb.fn.countAll().as('n'))
                  .executeTakeFirstOrThrow()
              ).n,
            )
      return { total, events: rows.map(toEvent) }
    })
  }

  async getEvent(id: number) {
    return this.#guard(async () => {
      const row = await this.#db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst()
      return row && toEvent(row)
    })
  }

  async createEvent(event: NewEvent) {
    return this.#write((trx) => insertEvent(trx, event))
  }

  async createEventOnce(event: NewEvent, key: IdempotencyKey) {
    return this.#write(async (trx) => {
      // Same-key requests queue here (on SQLite every writer already does), so the second one
      // sees the first one's committed row.
      await this.dialect.exclusive?.(trx, `idempotency:${key.principal}:${key.key}`)
      const now = Date.now()
      await trx
        .deleteFrom('idempotency_keys')
        .where('created_at', '<', now - key.lifetimeMs)
        .execute()
      const earlier = await trx
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('principal', '=', key.principal)
        .where('key', '=', key.key)
        .executeTakeFirst()
      if (earlier) {
        if (earlier.fingerprint !== key.fingerprint) {
          throw new DomainError(
            'idempotency_key_reused',
            'this Idempotency-Key was already used with a different request body',
          )
        }
        return { event: toEvent({ ...earlier, id: earlier.event_id }), replayed: true }
      }
      const created = await insertEvent(trx, event)
      await trx
        .insertInto('idempotency_keys')
        .values({
          principal: key.principal,
          key: key.key,
          fingerprint: key.fingerprint,
          event_id: created.id,
          title: created.title,
          starts_at: created.date,
          location_id: created.locationId,
          version: created.version,
          created_at: now,
        })
        .execute()
      return { event: created, replayed: false }
    })
  }

  async updateEvent(id: number, changes: EventChanges, precondition?: Precondition) {
    return this.#write(async (trx) => {
      requireStorable('/title', changes.title)
      if (changes.locationId !== undefined) await requireLocation(trx, changes.locationId, '/location_id')
      const row = await withPrecondition(
        trx
          .updateTable('events')
          .set((eb) => ({
            ...(changes.title !== undefined && { title: changes.title }),
            ...(changes.date !== undefined && { starts_at: changes.date }),
            ...(changes.locationId !== undefined && { location_id: changes.locationId }),
            // An empty merge patch changes nothing, so the ETag must not change either.
            version: Object.keys(changes).length > 0 ? eb('version', '+', 1) : eb.ref('version'),
          }))
          .where('id', '=', id),
        precondition,
      )
        .returningAll()
        .executeTakeFirst()
      if (!row) throw await whyNotWritten(trx, id)
      return toEvent(row)
    })
  }

  async deleteEvent(id: number, precondition?: Precondition) {
    await this.#write(async (trx) => {
      const row = await withPrecondition(trx.deleteFrom('events').where('id', '=', id), precondition)
        .returning('id')
        .executeTakeFirst()
      if (!row) throw await whyNotWritten(trx, id)
    })
  }

  async getLocation(id: number) {
    return this.#guard(async () => {
      const row = await this.#db.selectFrom('locations').selectAll().where('id', '=', id).executeTakeFirst()
      return row && toLocation(row)
    })
  }

  async createLocation(location: NewLocation) {
    return this.#write(async (trx) =>
      toLocation(await trx.insertInto('locations').values(location).returningAll().executeTakeFirstOrThrow()),
    )
  }

  async findUser(name: string) {
    return this.#guard(async () => {
      const row = await this.#db.selectFrom('users').selectAll().where('name', '=', name).executeTakeFirst()
      return row && toUser(row)
    })
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
    return this.#write((trx) => insertLocations(trx, this.dialect.flavour, locations, onProgress))
  }

  async initialiseOnce(fill: () => readonly ImportLocation[]) {
    return this.#write(async (trx) => {
      const inserted = await trx
        .insertInto('meta')
        .values({ key: 'initialised_at', value: new Date().toISOString() })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst()
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false
      await insertLocations(trx, this.dialect.flavour, fill())
      return true
    })
  }

  poolStats(): PoolStats | undefined {
    return this.dialect.poolStats?.()
  }

  async ping() {
    await this.#guard(() => sql`select 1`.execute(this.#db))
  }

  async close() {
    await this.dialect.close()
  }

  #write<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    return this.#guard(() => this.dialect.write(work))
  }

  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      throw this.dialect.translate(error)
    }
  }
}

async function insertEvent(trx: Executor, event: NewEvent) {
  requireStorable('/title', event.title)
  await requireLocation(trx, event.locationId, '/location_id')
  const row = await trx
    .insertInto('events')
    .values({ title: event.title, starts_at: event.date, location_id: event.locationId })
    .returningAll()
    .executeTakeFirstOrThrow()
  return toEvent(row)
}

async function requireLocation(trx: Executor, id: number, pointer: string) {
  const found = await trx.selectFrom('locations').select('id').where('id', '=', id).executeTakeFirst()
  if (!found) throw invalidField(pointer, `names no existing location (${id})`)
}

// PostgreSQL's text type cannot hold U+0000; every store refuses it so that all stores agree.
function requireStorable(pointer: string, text: string | undefined) {
  if (text?.includes('\u0000'))
    throw invalidField(pointer, 'contains the character U+0000, which cannot be stored')
}

interface Filterable<Q> {
  where(column: 'version', op: 'in', values: readonly number[]): Q
}

function withPrecondition<Q extends Filterable<Q>>(query: Q, precondition: Precondition | undefined): Q {
  if (precondition?.kind !== 'versions') return query
  // `version` is an SQL integer (32 bits in PostgreSQL, which rejects a larger parameter outright):
  // a tag naming a larger version can never match.
  const versions = precondition.versions.filter((v) => v <= maxVersion)
  // An If-Match that names no usable tag can never match; `in ()` is not valid SQL everywhere.
  return query.where('version', 'in', versions.length > 0 ? versions : [-1])
}

const maxVersion = 2_147_483_647

async function whyNotWritten(trx: Executor, id: number): Promise<DomainError> {
  const exists = await trx.selectFrom('events').select('id').where('id', '=', id).executeTakeFirst()
  return exists
    ? new DomainError('precondition_failed', `event ${id} has changed since the ETag in If-Match was issued`)
    : new DomainError('not_found', `there is no event ${id}`)
}

async function insertLocations(
  trx: Executor,
  flavour: SqlFlavour,
  locations: Iterable<ImportLocation>,
  onProgress?: (events: number) => void,
): Promise<{ locations: number; events: number }> {
  const batchSize = Math.floor(flavour.maxParameters / 3)
  let locationCount = 0
  let eventCount = 0
  for (const location of locations) {
    const { id } = await trx
      .insertInto('locations')
      .values({ name: location.name, address: location.address })
      .returning('id')
      .executeTakeFirstOrThrow()
    locationCount++
    for (let start = 0; start < location.events.length; start += batchSize) {
      const batch = location.events.slice(start, start + batchSize)
      await trx
        .insertInto('events')
        .values(batch.map((e) => ({ title: e.title, starts_at: e.date, location_id: Number(id) })))
        .execute()
      eventCount += batch.length
      onProgress?.(eventCount)
    }
  }
  return { locations: locationCount, events: eventCount }
}

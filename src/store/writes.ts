// The write steps the store's operations share. Each runs inside the caller's transaction, except
// updateEventLogged and insertEventLogged, each a statement and transaction of its own.
import { type Kysely, type QueryCreator, type Selectable, sql, type Updateable } from 'kysely'
import { CredentialsChanged, DomainError, invalidField } from '../domain/errors.ts'
import { foldTitle } from '../domain/event-filter.ts'
import { failedField, failureDetail } from '../domain/preconditions.ts'
import { type CredentialCheck, type Precondition, writingRoles } from '../domain/types.ts'
import { shapedStatements } from './compiled.ts'
import type { IdempotencyKey, NewEvent } from './event-store.ts'
import type { Executor } from './executor.ts'
import type { SqlFlavour } from './flavour.ts'
import { locationInUse, unknownLocation } from './location-references.ts'
import { toEvent } from './rows.ts'
import type { Database } from './schema.ts'

export async function insertEvent(trx: Executor, event: NewEvent) {
  requireStorable('/title', event.title)
  await requireLocation(trx, event.locationId)
  const row = await trx
    .insertInto('events')
    .values({ ...titleColumns(event.title), starts_at: event.date, location_id: event.locationId })
    .returningAll()
    .executeTakeFirstOrThrow()
  return toEvent(row)
}

/**
 * A title and its folded form, which the search reads (CONTRACT.md §3, `q`): every write of a
 * title writes both, so the two never disagree.
 */
export const titleColumns = (title: string) => ({ title, title_folded: foldTitle(title) })

export async function requireLocation(trx: Executor, id: number) {
  const found = await trx.selectFrom('locations').select('id').where('id', '=', id).executeTakeFirst()
  // A location deleted after this check and before the write commits breaks the foreign key
  // instead, which the dialect reports as the same error (location-references.ts).
  if (!found) throw unknownLocation(id)
}

// PostgreSQL's text type cannot hold U+0000; every store refuses it so that all stores agree.
export function requireStorable(pointer: string, text: string | undefined) {
  if (text?.includes('\u0000'))
    throw invalidField(pointer, 'contains the character U+0000, which cannot be stored')
}

interface KeyFilterable<Q> {
  where(column: 'principal' | 'key', op: '=', value: string): Q
}

interface Filterable<Q> {
  where(column: 'version', op: 'in' | 'not in', values: readonly number[]): Q
}

/**
 * Adds the precondition to the statement that writes, so that it is checked at the moment of
 * writing: of several writers sending the same If-Match, exactly one finds its version stored.
 */
export function withPrecondition<Q extends Filterable<Q>>(
  query: Q,
  precondition: Precondition | undefined,
): Q {
  return whereVersions(query, versionConditions(precondition))
}

const whereVersions = <Q extends Filterable<Q>>(query: Q, conditions: readonly VersionCondition[]) =>
  conditions.reduce((conditional, { op, versions }) => conditional.where('version', op, versions), query)

interface VersionCondition {
  readonly op: 'in' | 'not in'
  readonly versions: readonly number[]
}

/** The precondition as conditions on the stored version, each to hold for the write to happen. */
function versionConditions(precondition: Precondition | undefined): VersionCondition[] {
  const conditions: VersionCondition[] = []
  const { match, noneMatch } = precondition ?? {}
  // If-Match: * holds for any stored row, which `where id = …` already requires.
  if (match?.kind === 'versions') {
    // An If-Match that names no usable version can never hold.
    const versions = storable(match.versions)
    conditions.push({ op: 'in', versions: versions.length > 0 ? versions : noVersion })
  }
  // If-None-Match: * never holds for a stored row (RFC 9110 §13.1.2).
  if (noneMatch?.kind === 'any') conditions.push({ op: 'in', versions: noVersion })
  if (noneMatch?.kind === 'versions') {
    const versions = storable(noneMatch.versions)
    if (versions.length > 0) conditions.push({ op: 'not in', versions })
  }
  return conditions
}

// `version` is an SQL integer (32 bits in PostgreSQL, which rejects a larger parameter outright):
// a tag naming a larger version can never equal a stored one.
const maxVersion = 2_147_483_647
const storable = (versions: readonly number[]) => versions.filter((v) => v <= maxVersion)
// Versions start at 1: `version in (-1)` holds for no row (`in ()` is not valid SQL everywhere).
const noVersion = [-1]

/**
 * Why a conditional write touched no row, asked in the same transaction: the row is missing
 * (404, whatever the preconditions said: RFC 9110 §13.2.1) or a precondition failed (412).
 */
export async function whyNotWritten(
  trx: Executor,
  table: Versioned,
  id: number,
  precondition: Precondition | undefined,
  asUser?: CredentialCheck,
): Promise<Error> {
  // Credentials that no longer hold come first: their holder learns that (401, 403), not what
  // the write would have met.
  if (asUser) {
    const still = await trx
      .selectFrom('users')
      .select('id')
      .where('name', '=', asUser.name)
      .where('password_hash', '=', asUser.passwordHash)
      .where('role', 'in', writingRoles)
      .executeTakeFirst()
    if (!still) return new CredentialsChanged()
  }
  const what = `${table === 'events' ? 'event' : 'location'} ${id}`
  const row = await trx.selectFrom(table).select('version').where('id', '=', id).executeTakeFirst()
  if (!row) return new DomainError('not_found', `there is no ${what}`)
  // Under READ COMMITTED another writer may have changed the row since the write looked at it;
  // then the field that failed is not known, but a 412 it is.
  const field = failedField(precondition, Number(row.version))
  return new DomainError(
    'precondition_failed',
    field ? failureDetail(field, what) : `${what} changed while it was being written; read it again`,
  )
}

/**
 * The condition a write adds to confirm its principal's credentials (CredentialCheck): the user
 * still has a role that may write (domain/types.ts writingRoles) and the hash that was checked (the
 * users table read by its unique name).
 */
const stillEditor = (name: unknown, passwordHash: unknown) =>
  sql<boolean>`exists (select 1 from users where name = ${name} and password_hash = ${passwordHash} and role in (${sql.join(writingRoles)}))`

/** The tables whose rows carry a version, the ETag of their representations. */
export type Versioned = 'events' | 'locations'

/**
 * Writes `values` to row `id` when the precondition holds, raising its version unless `values`
 * is empty (an empty merge patch changes nothing, so the ETag must not change either); else
 * fails as whyNotWritten says. Answers the row as written.
 */
export async function updateVersioned<T extends Versioned>(
  trx: Executor,
  table: T,
  id: number,
  values: Updateable<Database[T]>,
  precondition: Precondition | undefined,
  asUser?: CredentialCheck,
): Promise<Selectable<Database[T]>> {
  // Typed for one table: Kysely cannot type a statement over a union of tables.
  const update = withPrecondition(
    trx
      .updateTable(table as Versioned as 'events')
      .set((eb) => ({
        ...(values as Updateable<Database['events']>),
        version: Object.keys(values).length > 0 ? eb('version', '+', 1) : eb.ref('version'),
      }))
      .where('id', '=', id),
    precondition,
  )
  const row = await (asUser ? update.where(stillEditor(asUser.name, asUser.passwordHash)) : update)
    .returningAll()
    .executeTakeFirst()
  if (!row) throw await whyNotWritten(trx, table, id, precondition, asUser)
  return row as Selectable<Database[T]>
}

/** A statement's `written` rows (an INSERT's or UPDATE's RETURNING *) beside the tables. */
type WithWritten = Database & { written: Selectable<Database['events']> }

/** The WITH step that logs each `written` event as one unnumbered change (change-log.ts). */
const logWritten = (kind: 'created' | 'updated', now: number) => (qb: QueryCreator<WithWritten>) =>
  qb
    .insertInto('change_log')
    .columns(['kind', 'event_id', 'title', 'starts_at', 'location_id', 'version', 'changed_at'])
    .expression((eb) =>
      eb
        .selectFrom('written')
        .select([
          sql.lit(kind).as('kind'),
          'id',
          'title',
          'starts_at',
          'location_id',
          'version',
          sql.val(now).as('changed_at'),
        ]),
    )

/**
 * updateVersioned for an event, with its change logged unnumbered (change-log.ts), as one
 * statement: the statement is its own transaction, so the write costs one round trip instead of
 * four (BEGIN, UPDATE, INSERT, COMMIT). Only where the log is numbered by its readers (a numbered
 * append must take the log's lock first) and where a WITH clause may hold writes (PostgreSQL).
 * Compiled once per set of columns and form of precondition (`loggedWrites`).
 */
export async function updateEventLogged(
  db: Kysely<Database>,
  id: number,
  values: Updateable<Database['events']>,
  precondition: Precondition | undefined,
  asUser?: CredentialCheck,
  now = Date.now(),
): Promise<Selectable<Database['events']>> {
  const columns = Object.keys(values) as (keyof typeof values)[]
  const conditions = versionConditions(precondition)
  const shape = `${columns.join()} ${conditions.map(({ op, versions }) => `${op} ${versions.length}`).join()}${asUser ? ' as user' : ''}`
  // The values in the order the builder below takes their slots.
  const slotted = [
    ...columns.map((column) => values[column]),
    id,
    now,
    ...conditions.flatMap(({ versions }) => versions),
    ...(asUser ? [asUser.name, asUser.passwordHash] : []),
  ]
  const statement = loggedWrites(db, `update ${shape}`, slotted, (slot) => {
    let next = columns.length + 2
    const slottedConditions = conditions.map(({ op, versions }) => ({
      op,
      versions: versions.map(() => slot<number>(next++)),
    }))
    const update = whereVersions(
      db
        .updateTable('events')
        .set((eb) => ({
          ...Object.fromEntries(columns.map((column, i) => [column, slot(i)])),
          version: eb('version', '+', 1),
        }))
        .where('id', '=', slot<number>(columns.length)),
      slottedConditions,
    )
    return db
      .with('written', () =>
        (asUser ? update.where(stillEditor(slot(next), slot(next + 1))) : update).returningAll(),
      )
      .with('logged', logWritten('updated', slot<number>(columns.length + 1)))
      .selectFrom('written')
      .selectAll()
  })
  const [row] = (await db.executeQuery(statement)).rows
  // Asked afterwards, outside the statement: the answer (404 or 412) held a moment ago.
  if (!row) throw await whyNotWritten(db, 'events', id, precondition, asUser)
  return row
}

/**
 * insertEvent with the change log, as one statement of its own: one round trip instead of five
 * (BEGIN, the location's check, INSERT, the log, COMMIT). Where updateEventLogged may be used, and
 * for the same reasons. The counts move in the insert's own trigger (event-count.ts). An unknown
 * location fails the foreign key, which the dialect reports as the check's own 422
 * (location-references.ts).
 */
export async function insertEventLogged(db: Kysely<Database>, event: NewEvent, now = Date.now()) {
  requireStorable('/title', event.title)
  const { title, title_folded } = titleColumns(event.title)
  const values = [title, title_folded, event.date, event.locationId, now]
  const statement = loggedWrites(db, 'insert', values, (slot) =>
    db
      .with('written', (qb) =>
        qb
          .insertInto('events')
          .values({
            title: slot(0),
            title_folded: slot(1),
            starts_at: slot(2),
            location_id: slot(3),
          })
          .returningAll(),
      )
      .with('logged', logWritten('created', slot<number>(4)))
      .selectFrom('written')
      .selectAll(),
  )
  const [row] = (await db.executeQuery(statement)).rows
  if (!row) throw new Error('an INSERT … RETURNING answered no row')
  return toEvent(row)
}

/** The one-statement writes above, each form compiled once (compiled.ts). */
const loggedWrites = shapedStatements<Selectable<Database['events']>>()

/** Deletes row `id` when the precondition holds; else fails as whyNotWritten says. */
export async function deleteVersioned<T extends Versioned>(
  trx: Executor,
  table: T,
  id: number,
  precondition: Precondition | undefined,
): Promise<Selectable<Database[T]>> {
  // Typed for one table, as in updateVersioned.
  const row = await withPrecondition(
    trx.deleteFrom(table as Versioned as 'events').where('id', '=', id),
    precondition,
  )
    .returningAll()
    .executeTakeFirst()
  if (!row) throw await whyNotWritten(trx, table, id, precondition)
  return row as Selectable<Database[T]>
}

/**
 * Deletes location `id` when the precondition holds and no event takes place there; else fails
 * with `in_use` and their number, or as whyNotWritten says.
 */
export async function deleteLocation(
  trx: Executor,
  flavour: SqlFlavour,
  id: number,
  precondition: Precondition | undefined,
): Promise<void> {
  // The row is locked before the events are counted. On PostgreSQL (READ COMMITTED) an event
  // written meanwhile holds a key-share lock on it from its foreign-key check, which FOR UPDATE
  // waits for: that event is committed by the count and counted. One that comes later waits for
  // this transaction and then finds the location gone (the key's violation: unknownLocation).
  // SQLite serialises every writer, so there the count cannot be overtaken.
  const select = withPrecondition(trx.selectFrom('locations').select('id').where('id', '=', id), precondition)
  const found = await (flavour.rowLocks ? select.forUpdate() : select).executeTakeFirst()
  if (!found) throw await whyNotWritten(trx, 'locations', id, precondition)
  const { events } = await trx
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('events'))
    .where('location_id', '=', id)
    .executeTakeFirstOrThrow()
  if (Number(events) > 0) throw locationInUse(id, Number(events))
  await deleteVersioned(trx, 'locations', id, precondition)
}

/**
 * Creates the event and remembers it under the key, or answers the event first created under
 * it. The caller holds the key's lock (or every writer's).
 */
export async function insertEventOnce(trx: Executor, event: NewEvent, key: IdempotencyKey) {
  const now = Date.now()
  const thisKey = <Q extends KeyFilterable<Q>>(query: Q) =>
    query.where('principal', '=', key.principal).where('key', '=', key.key)
  const earlier = await thisKey(trx.selectFrom('idempotency_keys').selectAll()).executeTakeFirst()
  // Expired keys are swept apart from requests (KyselyStore.forgetIdempotencyKeys), so that keyed
  // POSTs do not contend on one big delete; an expired row not yet swept counts as absent here.
  const expired = earlier !== undefined && earlier.created_at < now - key.lifetimeMs
  if (expired) await thisKey(trx.deleteFrom('idempotency_keys')).execute()
  if (earlier && !expired) {
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
}

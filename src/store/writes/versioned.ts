// Conditional writes of the rows that carry a version (events, locations): the precondition and
// the writer's credentials are checked in the statement that writes, and when it touches no row,
// whyNotWritten says why.
import { type Selectable, sql, type Updateable } from 'kysely'
import { CredentialsChanged, DomainError } from '../../domain/errors.ts'
import { failedField, failureDetail } from '../../domain/preconditions.ts'
import { type PasswordCheck, type Precondition, writingRoles } from '../../domain/types.ts'
import type { Executor } from '../executor.ts'
import type { Database } from '../schema.ts'

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

export const whereVersions = <Q extends Filterable<Q>>(query: Q, conditions: readonly VersionCondition[]) =>
  conditions.reduce((conditional, { op, versions }) => conditional.where('version', op, versions), query)

export interface VersionCondition {
  readonly op: 'in' | 'not in'
  readonly versions: readonly number[]
}

/** The precondition as conditions on the stored version, each to hold for the write to happen. */
export function versionConditions(precondition: Precondition | undefined): VersionCondition[] {
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
  asUser?: PasswordCheck,
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
 * The condition a write adds to confirm its principal's credentials (PasswordCheck): the user
 * still has a role that may write (domain/types.ts writingRoles) and the hash that was checked (the
 * users table read by its unique name).
 */
export const stillMayWrite = (name: unknown, passwordHash: unknown) =>
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
  asUser?: PasswordCheck,
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
  const row = await (asUser ? update.where(stillMayWrite(asUser.name, asUser.passwordHash)) : update)
    .returningAll()
    .executeTakeFirst()
  if (!row) throw await whyNotWritten(trx, table, id, precondition, asUser)
  return row as Selectable<Database[T]>
}

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

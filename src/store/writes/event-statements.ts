// An event's create and edit, each with its logged change, as one statement that is its own
// transaction: only where the change log is numbered by its readers (change-numbering.ts), since a
// numbered append must take the log's lock first.
import type { CompiledQuery, Kysely, QueryCreator, Selectable, Updateable } from 'kysely'
import { sql } from 'kysely'
import { CredentialsChanged } from '../../domain/errors.ts'
import { type CredentialCheck, isSignatureCheck, type Precondition } from '../../domain/types.ts'
import { type Slotted, shapedStatements } from '../compiled.ts'
import type { NewEvent } from '../event-store.ts'
import { toEvent } from '../rows.ts'
import type { Database } from '../schema.ts'
import { spendNonce } from './signature-nonces.ts'
import { requireStorable, titleColumns } from './stored-text.ts'
import { stillMayWrite, versionConditions, whereVersions } from './versioned.ts'

/**
 * Where the statements are built (`db`) and run: one statement, its own transaction, on the
 * primary (StoreContext.statement: past Kysely's executor where the dialect can).
 */
export interface StatementRunner {
  readonly db: Kysely<Database>
  statement<R>(query: CompiledQuery<R>): Promise<R[]>
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
 * Compiled once per set of columns and form of precondition (`loggedWrites`). Undefined when it
 * wrote nothing (whyNotWritten says why).
 *
 * A signed write (SignatureCheck) spends its nonce in the same statement, in a WITH step of its
 * own that inserts it only while the key still signs; the update happens only if that inserted
 * it. The insert stands when the update finds no row or a failed precondition, so a replay of a
 * 404 or 412 is refused too. No nonce inserted (spent before, or the key revoked): nothing written,
 * CredentialsChanged, and the request is authenticated again in full.
 */
export async function updateEventLogged(
  { db, statement: run }: StatementRunner,
  id: number,
  values: Updateable<Database['events']>,
  precondition: Precondition | undefined,
  asUser?: CredentialCheck,
  now = Date.now(),
): Promise<Selectable<Database['events']> | undefined> {
  const byKey = asUser && isSignatureCheck(asUser) ? asUser : undefined
  const byUser = asUser && !isSignatureCheck(asUser) ? asUser : undefined
  const columns = Object.keys(values) as (keyof typeof values)[]
  const conditions = versionConditions(precondition)
  const shape = `${columns.join()} ${conditions.map(({ op, versions }) => `${op} ${versions.length}`).join()}`
  // The values in the order the builder below takes their slots.
  const slotted = [
    ...columns.map((column) => values[column]),
    id,
    now,
    ...conditions.flatMap(({ versions }) => versions),
    ...(byUser ? [byUser.name, byUser.passwordHash] : []),
    ...(byKey ? [byKey.keyId, byKey.sealedSecret, byKey.nonce, byKey.nonceExpiresAt] : []),
  ]
  const update = (slot: Slotted) => {
    let next = columns.length + 2
    const slottedConditions = conditions.map(({ op, versions }) => ({
      op,
      versions: versions.map(() => slot<number>(next++)),
    }))
    const conditional = whereVersions(
      db
        .updateTable('events')
        .set((eb) => ({
          ...Object.fromEntries(columns.map((column, i) => [column, slot(i)])),
          version: eb('version', '+', 1),
        }))
        .where('id', '=', slot<number>(columns.length)),
      slottedConditions,
    )
    return { conditional, next }
  }
  if (byKey) {
    const statement = signedWrites(db, `update ${shape}`, slotted, (slot) => {
      const { conditional, next } = update(slot)
      const spent = {
        keyId: slot(next),
        sealedSecret: slot(next + 1),
        nonce: slot(next + 2),
        expiresAt: slot(next + 3),
      }
      return (
        db
          .with('nonce', (qb) => spendNonce(qb, spent).returning(sql.lit(1).as('spent')))
          .with('written', () => conditional.where(sql<boolean>`exists (select 1 from nonce)`).returningAll())
          .with('logged', logWritten('updated', slot<number>(columns.length + 1)))
          // One row when the nonce was spent, with the event's columns when it was written too.
          .selectFrom('nonce')
          .leftJoin('written', (join) => join.onTrue())
          .selectAll('written')
          .select('nonce.spent')
      )
    })
    const [row] = await run(statement)
    if (!row) throw new CredentialsChanged()
    return row.id === null ? undefined : (row as Selectable<Database['events']>)
  }
  const statement = loggedWrites(db, `update ${shape}${byUser ? ' as user' : ''}`, slotted, (slot) => {
    const { conditional, next } = update(slot)
    return db
      .with('written', () =>
        (byUser ? conditional.where(stillMayWrite(slot(next), slot(next + 1))) : conditional).returningAll(),
      )
      .with('logged', logWritten('updated', slot<number>(columns.length + 1)))
      .selectFrom('written')
      .selectAll()
  })
  const [row] = await run(statement)
  return row
}

/**
 * insertEvent with the change log, as one statement of its own: one round trip instead of five
 * (BEGIN, the location's check, INSERT, the log, COMMIT). Where updateEventLogged may be used, and
 * for the same reasons. The counts move in the insert's own trigger (event-count.ts). An unknown
 * location fails the foreign key, which the dialect reports as the check's own 422
 * (location-references.ts).
 */
export async function insertEventLogged(
  { db, statement: run }: StatementRunner,
  event: NewEvent,
  now = Date.now(),
) {
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
  const [row] = await run(statement)
  if (!row) throw new Error('an INSERT … RETURNING answered no row')
  return toEvent(row)
}

/** The one-statement writes above, each form compiled once (compiled.ts). */
const loggedWrites = shapedStatements<Selectable<Database['events']>>()
/** The signed updates: the event's columns null when the nonce was spent but nothing written. */
const signedWrites = shapedStatements<
  { [C in keyof Selectable<Database['events']>]: unknown } & { spent: number }
>()

// The write steps of events inside the caller's transaction: a create (with its idempotency key)
// and the location check that an edit which moves an event makes first.
import { DomainError } from '../../domain/errors.ts'
import type { IdempotencyKey, NewEvent } from '../event-store.ts'
import type { Executor } from '../executor.ts'
import { unknownLocation } from '../location-references.ts'
import { toEvent } from '../rows.ts'
import { requireStorable, titleColumns } from './stored-text.ts'

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

export async function requireLocation(trx: Executor, id: number) {
  const found = await trx.selectFrom('locations').select('id').where('id', '=', id).executeTakeFirst()
  // A location deleted after this check and before the write commits breaks the foreign key
  // instead, which the dialect reports as the same error (location-references.ts).
  if (!found) throw unknownLocation(id)
}

interface KeyFilterable<Q> {
  where(column: 'principal' | 'key', op: '=', value: string): Q
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

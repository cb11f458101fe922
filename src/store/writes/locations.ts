// The write steps of locations that need more than a conditional statement.
import type { Precondition } from '../../domain/types.ts'
import type { Executor } from '../executor.ts'
import type { SqlFlavour } from '../flavour.ts'
import { locationInUse } from '../location-references.ts'
import { deleteVersioned, whyNotWritten, withPrecondition } from './versioned.ts'

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

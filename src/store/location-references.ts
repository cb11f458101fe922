// Every event refers to a location (the foreign key events.location_id → locations.id), so a
// location cannot go while events take place there. The errors for either side of that rule, for
// the store's own checks and for a driver's report of the key itself (the dialects' translate()).
import { DomainError, invalidField } from '../domain/errors.ts'

/** An event names a location that does not exist (any more). */
export const unknownLocation = (id?: number): DomainError =>
  invalidField('/location_id', `names no existing location${id === undefined ? '' : ` (${id})`}`)

/**
 * A driver's report of the key names no value (translate() gives `unknownLocation()`): where the
 * store knows the id the event named, the answer names it as the store's own check does.
 */
export const naming = (error: unknown, id: number): unknown =>
  error instanceof DomainError && error.fields[0]?.pointer === '/location_id' ? unknownLocation(id) : error

/** A location that events still refer to, with their number when it is known. */
export function locationInUse(id?: number, events?: number): DomainError {
  const where = id === undefined ? 'this location' : `location ${id}`
  const what =
    events === undefined
      ? 'events still take place'
      : `${events} ${events === 1 ? 'event still takes' : 'events still take'} place`
  return new DomainError('in_use', `${what} at ${where}; delete them or move them elsewhere first`)
}

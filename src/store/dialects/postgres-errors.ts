// What PostgreSQL's errors mean to the service: busy or unreachable (503 with Retry-After, see
// http/problems.ts), a domain error, or a bug. A failover shows up here as a lost connection,
// an admin or crash shutdown, a server in recovery, a read-only transaction (the old primary, or
// a standby, took the write) or no acceptable host (postgres-host-choice.ts): all unavailable.
import { DomainError } from '../../domain/errors.ts'
import { locationInUse, unknownLocation } from '../location-references.ts'

const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, in recovery)
  '25006', // read_only_sql_transaction: a standby, or a demoted primary, was sent the write
  '57014', // query_canceled: statement_timeout
  '53300', // too_many_connections
])

const unreachableMessages =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|Query read timeout|Connection ended unexpectedly/i

/** True when `error` says the database could not be reached or answered in time. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (unreachableCodes.has(code) || code.startsWith('08'))) return true
  // Node reports a failed connection to every address of a host as one AggregateError.
  if (error instanceof AggregateError && error.errors.some(isUnavailable)) return true
  return unreachableMessages.test(error.message)
}

// SQLSTATE class 40, transaction rollback: the transaction lost to concurrent ones and was rolled
// back whole; run again, it may well succeed (PostgreSQL manual §13.4, "Serialization Failure
// Handling", names exactly these two).
const conflictCodes = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
])

export function isConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && conflictCodes.has(code)
}

export function translate(error: unknown): unknown {
  if (error instanceof DomainError) return error
  // Still in conflict after the store's retries (kysely-store.ts): busy, not broken (503).
  if (isConflict(error)) {
    const busy = new DomainError(
      'unavailable',
      'the database is busy with conflicting writes and could not complete this one; try again shortly',
    )
    busy.cause = error
    return busy
  }
  // character_not_in_repertoire: U+0000 in text that did not come through a checked field.
  if ((error as { code?: unknown }).code === '22021') {
    return new DomainError(
      'invalid_fields',
      'a text value contains a character that cannot be stored (U+0000)',
    )
  }
  // foreign_key_violation: the one key is events.location_id → locations.id. An event written
  // while its location was deleted meets it (location-references.ts); a delete counts the
  // events under a row lock first, so its side is only a fallback. PostgreSQL tells the two
  // sides apart in the message alone.
  if ((error as { code?: unknown }).code === '23503') {
    return /^update or delete on table "locations"/.test((error as Error).message)
      ? locationInUse()
      : unknownLocation()
  }
  if (!isUnavailable(error)) return error
  const unavailable = new DomainError(
    'unavailable',
    'the database is unreachable or did not answer in time; try again shortly',
  )
  // Kept for the log line of whoever handles it; the client sees only the message above.
  unavailable.cause = error
  return unavailable
}

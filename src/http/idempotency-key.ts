// The Idempotency-Key request field (draft-ietf-httpapi-idempotency-key-header): a structured
// String ("…"), or, as many clients send it, a bare token.
import { createHash } from 'node:crypto'
import { DomainError } from '../domain/errors.ts'

/** Keys are remembered for 24 hours (CONTRACT.md §3). */
export const idempotencyLifetimeMs = 24 * 60 * 60 * 1000

export function parseIdempotencyKey(field: string | string[] | undefined): string | undefined {
  if (field === undefined) return undefined
  const value = Array.isArray(field) ? undefined : field.trim()
  const key = value?.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value
  if (!key || key.length > 255 || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(key)) {
    throw new DomainError(
      'bad_request',
      'Idempotency-Key must be one value of 1–255 visible ASCII characters, optionally in double quotes',
    )
  }
  return key
}

/** What makes two requests "the same" for a key: the values they would store. */
export function requestFingerprint(values: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(values)).digest('base64url')
}

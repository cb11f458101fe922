// Errors are values with a stable code. The HTTP layer maps each code to a status in one catalog
// (http/problems.ts); nothing here knows about HTTP.

export type ErrorCode =
  | 'bad_request'
  | 'bad_paging'
  | 'bad_filter'
  | 'not_found'
  | 'method_not_allowed'
  | 'not_acceptable'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'unauthenticated'
  | 'forbidden'
  | 'precondition_failed'
  /** The resource cannot be removed while others still refer to it (a location with events). */
  | 'in_use'
  | 'invalid_fields'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'unavailable'
  | 'overloaded'
  /** A read did not finish within its time budget: too costly to answer now (narrow it, or retry). */
  | 'too_costly'

export interface FieldProblem {
  /** JSON Pointer (RFC 6901) into the request body. */
  readonly pointer: string
  readonly detail: string
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields: readonly FieldProblem[] = [],
  ) {
    super(message)
    this.name = 'DomainError'
  }
}

/**
 * The credentials a write was to confirm (CredentialCheck) are no longer an editor's: changed,
 * demoted or removed since they were remembered. Nothing was written; authenticate again. Never
 * an answer of its own (http/authenticate.ts `confirmedWrite` turns it into 401, 403 or the write).
 */
export class CredentialsChanged extends Error {
  constructor() {
    super('the credentials changed since they were checked')
    this.name = 'CredentialsChanged'
  }
}

/**
 * Request text quoted into an error's message (a path, a parameter, a field's name or value, a
 * header): marked, so that the one problem builder (http/problems.ts) can cap it, however the
 * message is composed afterwards. The marks are private-use characters (U+E000, U+E001); any in
 * the text itself are replaced first, so request text cannot close its own quotation.
 */
export function echo(text: string): string {
  return `${echoOpen}${text.replace(/[\uE000\uE001]/g, '\uFFFD')}${echoClose}`
}
export const echoOpen = '\uE000'
export const echoClose = '\uE001'

/** A message with its echo marks removed, for readers other than the problem builder (logs, the CLI). */
export const unmarked = (message: string): string => message.replace(/[\uE000\uE001]/g, '')

export const invalidField = (pointer: string, detail: string): DomainError =>
  new DomainError('invalid_fields', `${pointer.slice(1) || 'body'} ${detail}`, [{ pointer, detail }])

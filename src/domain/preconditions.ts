// Conditional requests (RFC 9110 §13.2): which preconditions a request carries, in which order they
// are evaluated and what a false one answers. One piece for every resource and method: reads
// evaluate against the ETag of the representation they are about to send; writes hand the store a
// Precondition to check in the very statement that writes (see store/writes.ts).
import { ifMatchHolds, ifNoneMatchHolds, versionSet } from './etag.ts'
import type { Precondition, VersionSet } from './types.ts'

/** The precondition fields this service evaluates, as received (a repeated field joined by commas). */
export interface ConditionalFields {
  readonly ifMatch?: string | undefined
  readonly ifNoneMatch?: string | undefined
}

export type PreconditionField = 'If-Match' | 'If-None-Match'

/** `proceed`: answer as if unconditional; `not_modified`: 304; `precondition_failed`: 412. */
export type Evaluation =
  | { readonly outcome: 'proceed' | 'not_modified' }
  | { readonly outcome: 'precondition_failed'; readonly field: PreconditionField }

// RFC 9110 §13.1.2: a false If-None-Match answers 304 to GET and HEAD. QUERY is safe, its responses
// are cacheable, and draft-ietf-httpbis-safe-method-w-body §2.3 ("Conditional Requests") evaluates
// a conditional QUERY against its selected representation, the query result, as §13 does for
// GET: a cache revalidating a stored QUERY response needs the 304.
const notModifiedMethods: ReadonlySet<string> = new Set(['GET', 'HEAD', 'QUERY'])

/**
 * RFC 9110 §13.2.2, for a request whose response without preconditions would be 2xx (§13.2.1: a
 * 404, say, stays a 404 whatever the fields say, so callers evaluate only for an existing target).
 * `current` is the strong ETag of the selected representation, undefined when there is none.
 *
 * 1. If-Match false → 412.
 * 2. If-Unmodified-Since (only without If-Match): ignored, since no representation carries a
 *    Last-Modified date to compare it with (§13.1.4: the recipient MUST ignore it then).
 * 3. If-None-Match false → 304 for GET, HEAD (and QUERY), 412 for every other method.
 * 4. If-Modified-Since: ignored, for the same reason as step 2 (§13.1.3).
 * 5. If-Range: ignored, as the service serves no ranges (§13.1.5).
 */
export function evaluatePreconditions(
  method: string,
  fields: ConditionalFields,
  current: string | undefined,
): Evaluation {
  if (fields.ifMatch !== undefined && !ifMatchHolds(fields.ifMatch, current)) {
    return { outcome: 'precondition_failed', field: 'If-Match' }
  }
  if (fields.ifNoneMatch !== undefined && !ifNoneMatchHolds(fields.ifNoneMatch, current)) {
    return notModifiedMethods.has(method)
      ? { outcome: 'not_modified' }
      : { outcome: 'precondition_failed', field: 'If-None-Match' }
  }
  return { outcome: 'proceed' }
}

/**
 * The preconditions of a write to a stored resource, for the store to check atomically with the
 * write (steps 1 and 3 of §13.2.2 both answer 412 to a write, so both must simply hold).
 * Undefined when the request carries none.
 */
export function writePrecondition(fields: ConditionalFields): Precondition | undefined {
  const { ifMatch, ifNoneMatch } = fields
  if (ifMatch === undefined && ifNoneMatch === undefined) return undefined
  return {
    ...(ifMatch !== undefined && { match: versionSet(ifMatch, 'strong') }),
    ...(ifNoneMatch !== undefined && { noneMatch: versionSet(ifNoneMatch, 'weak') }),
  }
}

const includes = (set: VersionSet, version: number) => set.kind === 'any' || set.versions.includes(version)

/**
 * The field whose condition the stored version fails (If-Match is evaluated first), or undefined
 * when the precondition holds for it. The store's conditional statement says the same in SQL.
 */
export function failedField(
  precondition: Precondition | undefined,
  version: number,
): PreconditionField | undefined {
  if (precondition?.match && !includes(precondition.match, version)) return 'If-Match'
  if (precondition?.noneMatch && includes(precondition.noneMatch, version)) return 'If-None-Match'
  return undefined
}

/** The detail of a 412: which field failed for what (`what` names the target, e.g. "event 7"). */
export function failureDetail(field: PreconditionField, what: string): string {
  return field === 'If-Match'
    ? `If-Match does not name the current ETag of ${what}: it has changed since, or the tag is weak`
    : `If-None-Match matches ${what}: it names its current ETag, or is * and ${what} exists`
}

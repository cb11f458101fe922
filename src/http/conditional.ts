// Conditional requests (RFC 9110 §13) at the HTTP edge: the precondition fields of a request, the
// validator fields of a response, and the 412. The rules themselves are domain/preconditions.ts.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { DomainError } from '../domain/errors.ts'
import {
  type ConditionalFields,
  evaluatePreconditions,
  failureDetail,
  writePrecondition as preconditionOf,
} from '../domain/preconditions.ts'
import type { Precondition } from '../domain/types.ts'

/** If-Match and If-None-Match as received (Node joins a repeated field with commas, as a list). */
export function conditionalFields(request: FastifyRequest): ConditionalFields {
  return { ifMatch: request.headers['if-match'], ifNoneMatch: request.headers['if-none-match'] }
}

/**
 * For an existing resource whose representation is about to be sent with `etag`: evaluates the
 * request's preconditions (a false one fails with `precondition_failed`, 412), sets the validator
 * and caching fields, and returns true when the client's copy is current (send 304, no body).
 * `what` names the resource in a 412's detail.
 */
export function notModified(
  request: FastifyRequest,
  reply: FastifyReply,
  etag: string,
  what: string,
): boolean {
  const evaluation = evaluatePreconditions(request.method, conditionalFields(request), etag)
  if (evaluation.outcome === 'precondition_failed') {
    throw new DomainError('precondition_failed', failureDetail(evaluation.field, what))
  }
  // no-cache: caches may keep it but must revalidate, so a write is seen by the next read.
  reply.header('etag', etag).header('cache-control', 'no-cache')
  return evaluation.outcome === 'not_modified'
}

/**
 * For a write to a resource that always exists and has no stored version (POST to the
 * collection): fails with `precondition_failed` unless the preconditions hold for the ETag that
 * `current` computes (asked only when the request carries a precondition).
 */
export async function requirePreconditions(
  request: FastifyRequest,
  current: () => Promise<string>,
  what: string,
): Promise<void> {
  const fields = conditionalFields(request)
  if (fields.ifMatch === undefined && fields.ifNoneMatch === undefined) return
  const evaluation = evaluatePreconditions(request.method, fields, await current())
  if (evaluation.outcome === 'precondition_failed') {
    throw new DomainError('precondition_failed', failureDetail(evaluation.field, what))
  }
}

/** The preconditions of a write to a stored resource, checked by the store in the statement that writes. */
export function writePrecondition(request: FastifyRequest): Precondition | undefined {
  return preconditionOf(conditionalFields(request))
}

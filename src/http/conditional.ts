// Conditional requests (RFC 9110 §13) on reads: ETag on every representation, 304 on a match.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ifMatchPrecondition, noneMatch } from '../domain/etag.ts'
import type { Precondition } from '../domain/types.ts'

/** Sets the validator and caching fields; true when the client's copy is current (send 304). */
export function notModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  // no-cache: caches may keep it but must revalidate, so a write is seen by the next read.
  reply.header('etag', etag).header('cache-control', 'no-cache')
  const field = request.headers['if-none-match']
  return field !== undefined && !noneMatch(field, etag)
}

/** The If-Match precondition of a write, checked by the store in the same statement as the write. */
export function writePrecondition(request: FastifyRequest): Precondition | undefined {
  const field = request.headers['if-match']
  return field === undefined ? undefined : ifMatchPrecondition(field)
}

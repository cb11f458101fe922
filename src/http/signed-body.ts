// The body of a signed request against the Content-Digest its signature covers (RFC 9530 §2).
// Apart from signature-auth.ts so that the body parser (body.ts) needs nothing else of the scheme.
import { hash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest, preValidationHookHandler } from 'fastify'
import { DomainError } from '../domain/errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The body digest a verified signature vouches for, until the body has been checked against it. */
    signedBodyDigest: Buffer | null
    /** Counts a failed verification against the client (signature-auth.ts), once the body fails it. */
    signatureFailed: (() => void) | null
  }
}

/** The one thing a client is told, whichever rule of the signature failed (the log says which). */
export const signatureNotValid = () =>
  new DomainError('unauthenticated', 'the request signature is not valid')

/**
 * Called by the body parser with the exact bytes received, before they are parsed: refuses the
 * request when a verified signature named another body.
 */
export function checkSignedBody(request: FastifyRequest, bytes: Buffer): void {
  const expected = request.signedBodyDigest
  if (!expected) return
  request.signedBodyDigest = null
  const actual = hash('sha256', bytes, 'buffer')
  if (!timingSafeEqual(actual, expected)) {
    request.log.info({ rule: 'Content-Digest does not match the body' }, 'request signature refused')
    request.signatureFailed?.()
    throw signatureNotValid()
  }
}

/**
 * A step of every operation that takes a body (http/pipeline.ts): a signature over a body the
 * parser never saw (it sees every body that arrives) is not trusted.
 */
export const requireCheckedBody: preValidationHookHandler = (request, _reply, done) => {
  done(request.signedBodyDigest === null ? undefined : signatureNotValid())
}

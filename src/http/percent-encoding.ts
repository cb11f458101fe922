// Malformed percent-encoding in the request target (RFC 3986 §2.1: "%" followed by two hex digits,
// and here the decoded octets UTF-8, RFC 3986 §2.5) is a 400, in the path and the query alike.
// Fastify's query parser would otherwise keep `?q=%ZZ` or a lone `%` as literal text and search for
// it, and the router answers a malformed path parameter 400 (FST_ERR_BAD_URL) but a malformed
// path that matches no route 404: this one check, before routing's answer is used, makes every
// target with malformed percent-encoding the same 400 (docs/http.md).
import type { FastifyInstance } from 'fastify'
import { DomainError, echo } from '../domain/errors.ts'

/** True when `target` (a path and query as received) holds malformed percent-encoding. */
export function malformedPercentEncoding(target: string): boolean {
  if (!target.includes('%')) return false
  try {
    // Throws URIError for "%" without two hex digits and for octets that are not UTF-8.
    decodeURIComponent(target)
    return false
  } catch {
    return true
  }
}

export const badPercentEncoding = (target: string): DomainError =>
  new DomainError(
    'bad_request',
    `the request target ${echo(target)} holds malformed percent-encoding (RFC 3986 §2.1: "%" and two hex digits of UTF-8)`,
  )

/** Refuses such targets on every route, the not-found answer included. */
export function registerPercentEncodingCheck(app: FastifyInstance): void {
  // A callback, not an async function: it runs for every request.
  app.addHook('onRequest', (request, _reply, done) => {
    const target = request.raw.url ?? ''
    done(malformedPercentEncoding(target) ? badPercentEncoding(target) : undefined)
  })
}

// How an HTML page goes out: its own strong ETag, the Content-Security-Policy, and 304 for a
// current copy, the same preconditions as every other representation.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { contentEtag } from '../../domain/etag.ts'
import { notModified } from '../conditional.ts'
import type { Html } from './escape.ts'

export const htmlType = 'text/html; charset=utf-8'

/**
 * Scripts, styles, images and fetches from the service alone, nothing inline, no plug-ins, no
 * framing, forms only to the service: escaping is the first defence against injected markup, this
 * the second.
 */
export const contentSecurityPolicy =
  "default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'"

/**
 * The answer of `page`: its bytes, or none for a 304 (with HEAD, Fastify sends the headers alone). Its ETag is made from its bytes: a strong ETag names
 * one representation (RFC 9110 §8.8.3), and the HTML of a resource is another representation than
 * its JSON, which often shows more (an event page names its location), so it never shares the
 * JSON's tag, and it changes whenever the page would.
 */
export function htmlBody(
  request: FastifyRequest,
  reply: FastifyReply,
  page: Html,
  what: string,
  /** Fields of a successful answer (a page's Link), set once the preconditions hold. */
  headers: Record<string, string> = {},
): Buffer | undefined {
  const text = page.toString()
  const unchanged = notModified(request, reply, contentEtag(text), what)
  reply.headers(headers).header('content-security-policy', contentSecurityPolicy)
  if (unchanged) {
    reply.code(304)
    return undefined
  }
  reply.type(htmlType)
  return Buffer.from(text)
}

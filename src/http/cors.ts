// CORS (Fetch standard, "CORS protocol"), off unless CORS_ORIGINS lists origins. Only a listed
// origin is named in Access-Control-Allow-Origin; others, and requests without Origin, get no CORS
// field at all. The service is stateless and takes credentials in Authorization, which a script
// sets itself: Access-Control-Allow-Credentials is never sent (no cookies to carry).
//
// A preflight (OPTIONS with Origin and Access-Control-Request-Method) on a resource of the route
// table gets that resource's methods; it still passes through the resource's own OPTIONS route
// (204 + Allow), so a plain OPTIONS keeps exactly its answer.
import cors, { type FastifyCorsOptions } from '@fastify/cors'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** Request fields a client of this API sets (authentication, preconditions, idempotency, signing). */
export const allowedHeaders = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
  'Signature',
  'Signature-Input',
  'Content-Digest',
  'X-Request-Id',
]

/** Response fields a script may read besides the CORS-safelisted ones. */
export const exposedHeaders = [
  'ETag',
  'Link',
  'Location',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'X-Request-Id',
]

/** How long a browser may reuse a preflight's answer, in seconds. */
const preflightMaxAgeSeconds = 600

export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return
  // Browsers send the serialised origin (RFC 6454 §6.2): lower-case, without a default port.
  const allowed = new Set(origins.map((origin) => new URL(origin).origin))
  const optionsFor = (request: FastifyRequest): FastifyCorsOptions => {
    const origin = request.headers.origin
    if (origin === undefined || !allowed.has(origin)) return { origin: false }
    const allow = request.routeOptions.config.allow
    const preflight =
      request.method === 'OPTIONS' &&
      allow !== undefined &&
      request.headers['access-control-request-method'] !== undefined
    return {
      origin,
      credentials: false,
      exposedHeaders,
      preflight,
      // The resource's OPTIONS route answers (204, Allow), with the preflight fields added here.
      preflightContinue: true,
      strictPreflight: false,
      ...(preflight && { methods: allow, allowedHeaders, maxAge: preflightMaxAgeSeconds }),
    }
  }
  // A delegator makes the plugin add Vary: Origin to every answer (a shared cache must not give
  // one origin's answer to another); the onSend hook in app.ts adds Accept beside it.
  app.register(cors, {
    hook: 'onRequest',
    delegator: (request, callback) => callback(null, optionsFor(request)),
  })
}

// Which requests read the primary although the store has replicas (DATABASE_READ_URL): every
// request but a GET, HEAD or QUERY (its reads are those of a write: the preconditions of a POST,
// for instance), and a read whose client asks for the newest data with `Cache-Control: no-cache`
// (RFC 9111 §5.2.1.4: an answer validated with the origin, not a stored one). The store reads
// the context (store/read-target.ts), so every read the handler makes follows it.
import type { FastifyInstance } from 'fastify'
import { readingPrimary } from '../store/read-target.ts'

const replicaMethods = new Set(['GET', 'HEAD', 'QUERY'])

/** True when a request's Cache-Control carries the no-cache directive. */
export function asksForNewest(cacheControl: string | string[] | undefined): boolean {
  if (cacheControl === undefined) return false
  const text = Array.isArray(cacheControl) ? cacheControl.join(',') : cacheControl
  return /(?:^|,)\s*no-cache\s*(?:$|,|=)/i.test(text)
}

/** Registers the rule; only where the store reads from replicas (the context costs elsewhere). */
export function registerPrimaryReads(app: FastifyInstance): void {
  // preHandler: after the body has arrived, so the context reaches the handler whatever the
  // parser did; the reads of authentication, earlier, go to the primary anyway.
  app.addHook('preHandler', (request, _reply, done) => {
    if (replicaMethods.has(request.method) && !asksForNewest(request.headers['cache-control'])) done()
    else readingPrimary(done)
  })
}

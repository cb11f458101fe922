// Request rate limits (CONTRACT.md §5, §6): reads per client address, writes per principal, each
// in a fixed window of a minute from the key's first request, counted in http/rate-limit-store.ts
// (this process, or Redis shared by every instance).
//
// - Reads (GET, HEAD, QUERY of the API's resources) count under the client's address
//   (`request.ip`, which follows TRUST_PROXY; an IPv6 address by its /64, as for failed
//   attempts). A principal's reads count under its address, never against its writes.
// - Writes (POST, PUT, PATCH, DELETE) count under the principal (the user or API key).
// - Both are counted once the pipeline (http/pipeline.ts) has accepted the request: after
//   authentication, so that a write is counted for whoever sent it, and before the body is read.
//   Requests refused there (401, 403, 406, 415) are not counted and carry no RateLimit fields: they
//   cost little, wrong credentials have their own limit (auth/failed-attempts.ts), and a 401 for
//   an unknown user stays byte for byte the 401 for a wrong password.
// - /health/* and /metrics are never limited (a probe or a scraper must never be locked out), nor
//   are OPTIONS, 404 and 405, which cost no more to answer than a 429 would.
// - A limit of 0 switches that kind off: nothing is counted and no RateLimit fields are sent.
//
// Every response of a limited request carries RateLimit-Policy and RateLimit in the
// structured-field form of draft-ietf-httpapi-ratelimit-headers-11 (the same form the
// failed-attempt 429 uses): `RateLimit-Policy: "reads";q=1200;w=60` names the quota and window,
// `RateLimit: "reads";r=1187;t=42` the requests left and the seconds until the window ends. Past
// the quota the answer is 429 with Retry-After equal to t (RFC 6585 §4; the draft's Retry-After and
// t "SHOULD reference the same point in time").
import { hash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { addressBlock } from '../auth/failed-attempts.ts'
import { DomainError } from '../domain/errors.ts'
import type { Counters, Hit } from './rate-limit-store.ts'

export interface RateLimits {
  /** Reads per client address per window; 0: unlimited. */
  readonly reads: number
  /** Writes per principal per window; 0: unlimited. */
  readonly writes: number
  readonly counters: Counters
  readonly windowMs?: number
}

type Kind = 'reads' | 'writes'

const refusals: Record<Kind, string> = {
  reads: 'too many requests from this address; try again after Retry-After seconds',
  writes: 'too many writes by this user or key; try again after Retry-After seconds',
}

/** Paths no limit applies to: probes and scrapers must always get through. */
export const unlimited = (url: string) => url === '/metrics' || url.startsWith('/health/')

/** What counting one request decided: its RateLimit fields, and the refusal when it is over its limit. */
export interface Verdict {
  /** Names and values in turn, as Node's writeHead takes them. */
  readonly fields: readonly string[]
  readonly refusal: DomainError | null
}

/**
 * Counts a request the pipeline has accepted (http/pipeline.ts: after authentication, before the
 * body is read) and sets its RateLimit fields: the refusal when it is over its limit, else null.
 * It answers at once for counters in memory, and with a promise for counters in Redis.
 */
export type RateLimiter = (
  request: FastifyRequest,
  reply: FastifyReply,
  write: boolean,
) => DomainError | null | Promise<DomainError | null>

/** The limiter of `limits`; undefined when both kinds are off. */
export function rateLimiter(limits: RateLimits): RateLimiter | undefined {
  const windowMs = limits.windowMs ?? 60_000
  const windowSeconds = Math.ceil(windowMs / 1000)
  const policies: Record<Kind, string> = {
    reads: `"reads";q=${limits.reads};w=${windowSeconds}`,
    writes: `"writes";q=${limits.writes};w=${windowSeconds}`,
  }

  function verdict(kind: Kind, { count, resetMs }: Hit): Verdict {
    const limit = limits[kind]
    // RFC 9110 §10.2.3: whole seconds; never 0 while the window is still open.
    const seconds = Math.max(1, Math.ceil(resetMs / 1000))
    const state = `"${kind}";r=${Math.max(0, limit - count)};t=${seconds}`
    if (count <= limit)
      return { fields: ['ratelimit-policy', policies[kind], 'ratelimit', state], refusal: null }
    return {
      fields: ['ratelimit-policy', policies[kind], 'ratelimit', state, 'retry-after', String(seconds)],
      refusal: new DomainError('rate_limited', refusals[kind]),
    }
  }

  function count(kind: Kind, key: string): Verdict | Promise<Verdict> {
    const hit = limits.counters.hit(`${kind}:${key}`, windowMs)
    if (!(hit instanceof Promise)) return verdict(kind, hit)
    return hit.then((counted) => verdict(kind, counted))
  }

  /** Sets the fields of a counted request on its reply: the refusal, or null. */
  const judged = (reply: FastifyReply, { fields, refusal }: Verdict) => {
    for (let i = 0; i < fields.length; i += 2) reply.header(fields[i] as string, fields[i + 1])
    return refusal
  }

  // request.ip is undefined once the client has gone (its socket has no address any more).
  const countRead = (address: string | undefined) => count('reads', addressBlock(address ?? 'gone'))

  if (limits.reads === 0 && limits.writes === 0) return undefined
  const limiter = (request: FastifyRequest, reply: FastifyReply, write: boolean) => {
    let counted: Verdict | Promise<Verdict>
    if (!write) {
      if (limits.reads === 0) return null
      counted = countRead(request.ip)
    } else {
      if (limits.writes === 0 || !request.principal) return null
      // A digest keeps user names out of a shared store, and keys short.
      counted = count('writes', hash('sha256', request.principal.name, 'base64url'))
    }
    if (!(counted instanceof Promise)) return judged(reply, counted)
    return counted.then((verdict) => judged(reply, verdict))
  }
  return limiter
}

// Links that work behind a path-prefixing proxy (TRUST_PROXY). Body `uri`s stay paths relative to
// the base URL (seed §2); only the header fields a client follows as they are — Link (RFC 8288)
// and Location (RFC 9110 §10.2.2) — become absolute URLs at the address the client used:
// `<proto>://<host><prefix><path>`, from X-Forwarded-Proto, X-Forwarded-Host and
// X-Forwarded-Prefix when the peer is a trusted proxy. Untrusted or invalid values are ignored,
// never echoed.
import { isIPv6 } from 'node:net'
import proxyAddr from '@fastify/proxy-addr'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TrustProxy } from '../config.ts'
import type { AnswerStep } from './answer-steps.ts'

/** Whether the address `hop` steps from the service is a proxy whose X-Forwarded-* fields count. */
export type TrustFunction = (address: string, hop: number) => boolean

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The URL a client of this request follows for `path` (a path relative to the base URL):
     * absolute at the proxy's public address when the request came through a trusted proxy,
     * else `path` unchanged.
     */
    externalUrl(path: string): string
  }
}

/**
 * The trust function for a TRUST_PROXY setting, also given to Fastify as its `trustProxy` so that
 * `request.ip`, `request.protocol` and `request.host` agree with the links; undefined for false.
 */
export function proxyTrust(setting: TrustProxy): TrustFunction | undefined {
  if (setting === false) return undefined
  if (setting === true) return () => true
  // A hop count trusts the nearest n hops whoever they are (as Express does): like `true` for the
  // peer's own X-Forwarded-* fields, so only for a service no client can reach but through the
  // proxies. Fastify 5.12 itself refuses numbers (it trusts nothing), hence a function here.
  if (typeof setting === 'number') return (_address, hop) => hop < setting
  // Throws on an address proxy-addr cannot parse, so a bad list stops start-up.
  return remembered(proxyAddr.compile([...setting]))
}

/** Distinct peer and forwarded addresses remembered at most; then forgotten all at once. */
const maxRememberedAddresses = 1024

/**
 * A list's answer per address (the list ignores the hop). Fastify asks on every read of
 * `request.ip`, `.protocol` and `.host` (the rate limit, the access line, the links), and
 * proxy-addr parses the address with ipaddr.js each time: ~3 % of a 304's CPU behind a proxy.
 * The peers and clients of one process are few; the map is bounded all the same.
 */
function remembered(trust: TrustFunction): TrustFunction {
  const known = new Map<string, boolean>()
  return (address, hop) => {
    let trusted = known.get(address)
    if (trusted === undefined) {
      trusted = trust(address, hop)
      if (known.size >= maxRememberedAddresses) known.clear()
      known.set(address, trusted)
    }
    return trusted
  }
}

/** The last of several comma-separated values: the one the nearest proxy appended (as Fastify reads X-Forwarded-Host). */
export function lastValue(field: string | string[] | undefined): string | undefined {
  const text = Array.isArray(field) ? field.join(',') : field
  if (text === undefined) return undefined
  return text.slice(text.lastIndexOf(',') + 1).trim()
}

// RFC 3986 §3.3 segments, restricted to unreserved characters and percent-encodings.
const prefixSegment = /^(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+$/
// Percent-encoded control characters, `/` and `\`: each would change the path's meaning or break a field.
const unsafeEncoding = /%(?:[01][0-9A-Fa-f]|7[Ff]|2[Ff]|5[Cc])/

/**
 * A path prefix from X-Forwarded-Prefix: `/` followed by segments of safe characters, no `.` or
 * `..` segment (RFC 3986 §5.2.4 would remove them), no empty segment, the trailing `/` dropped
 * (`/` alone is the empty prefix). Undefined when the text is not such a path.
 */
export function parsePrefix(text: string): string | undefined {
  if (text.length > 1024 || !text.startsWith('/')) return undefined
  const prefix = text.endsWith('/') ? text.slice(0, -1) : text
  if (prefix === '') return ''
  for (const segment of prefix.slice(1).split('/')) {
    if (!prefixSegment.test(segment) || unsafeEncoding.test(segment)) return undefined
    let decoded: string
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      return undefined // not UTF-8
    }
    if (decoded === '.' || decoded === '..') return undefined
  }
  return prefix
}

// A DNS name or IPv4 address: dot-separated labels of letters, digits, `-` and `_`.
const hostName =
  /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*$/
// RFC 3986 §3.2.2 IP-literal without a zone (isIPv6 alone takes `fe80::1%eth0`).
const ipv6Literal = /^\[[0-9A-Fa-f:.]+\]$/
const withPort = /^(.*?)(?::(\d{1,5}))?$/

/** `host[:port]` (RFC 9110 §7.2) as given, when it is a name, an IPv4 address or a bracketed IPv6 address. */
export function parseHost(text: string): string | undefined {
  const [, host = '', port] = withPort.exec(text) ?? []
  if (port !== undefined && Number(port) > 65535) return undefined
  const valid = host.startsWith('[')
    ? ipv6Literal.test(host) && isIPv6(host.slice(1, -1))
    : hostName.test(host)
  return valid ? text : undefined
}

/** `http` or `https` from X-Forwarded-Proto; any other scheme is ignored. */
export function parseProto(text: string): 'http' | 'https' | undefined {
  const lower = text.toLowerCase()
  return lower === 'http' || lower === 'https' ? lower : undefined
}

export interface ForwardedInput {
  /** The request's header fields (lower-case names, as Node gives them). */
  readonly headers: Record<string, string | string[] | undefined>
  /** Whether the connection itself is TLS. */
  readonly encrypted: boolean
}

/**
 * What the base URL is for a request that came through a trusted proxy: `<proto>://<host><prefix>`,
 * or only `<prefix>` when no valid host is known (still right once resolved against the request).
 */
export function externalBase({ headers, encrypted }: ForwardedInput): string {
  const proto = parseProto(lastValue(headers['x-forwarded-proto']) ?? '') ?? (encrypted ? 'https' : 'http')
  const host =
    parseHost(lastValue(headers['x-forwarded-host']) ?? '') ?? parseHost(lastValue(headers.host) ?? '')
  const prefix = parsePrefix(lastValue(headers['x-forwarded-prefix']) ?? '') ?? ''
  return host === undefined ? prefix : `${proto}://${host}${prefix}`
}

// A root-relative reference (RFC 3986 §4.2 absolute-path reference): one `/`, not `//`.
const rootRelative = /^\/(?!\/)/
// The target of each link-value in a Link field (RFC 8288 §3: `<` URI-Reference `>`).
const linkTarget = /<(\/(?!\/)[^>]*)>/g

/** A Location value with its root-relative reference put under `base`; anything else unchanged. */
export function rebaseLocation(value: string, base: string): string {
  return rootRelative.test(value) ? `${base}${value}` : value
}

/** A Link field with every root-relative target put under `base`; other targets unchanged. */
export function rebaseLinkField(value: string, base: string): string {
  return value.replace(linkTarget, (_whole, path: string) => `<${base}${path}>`)
}

/**
 * Gives every request `externalUrl(path)` and, when some proxy is trusted, answers the step
 * (answer-steps.ts) that rewrites the Link and Location fields of responses to requests that came
 * through one. With `trust` undefined nothing observable changes.
 */
export function registerForwarded(
  app: FastifyInstance,
  trust: TrustFunction | undefined,
): AnswerStep | undefined {
  const baseOf = (request: FastifyRequest): string | undefined => {
    const socket = request.raw.socket
    // As Fastify decides for X-Forwarded-Host and -Proto: only the immediate peer's word counts.
    if (!trust || !socket?.remoteAddress || !trust(socket.remoteAddress, 0)) return undefined
    return externalBase({
      headers: request.headers,
      encrypted: 'encrypted' in socket && socket.encrypted === true,
    })
  }

  app.decorateRequest('externalUrl', function externalUrl(this: FastifyRequest, path: string) {
    const base = baseOf(this)
    return base === undefined ? path : rebaseLocation(path, base)
  })
  if (!trust) return undefined

  // It runs for every response. Most answers (an event, a 304, a problem) carry neither field, and
  // their base is never worked out.
  return (request, reply, payload) => {
    const location = reply.getHeader('location')
    const link = reply.getHeader('link')
    if (location === undefined && link === undefined) return payload
    const base = baseOf(request)
    if (base === undefined) return payload
    if (typeof location === 'string') reply.header('location', rebaseLocation(location, base))
    if (typeof link === 'string') reply.header('link', rebaseLinkField(link, base))
    else if (Array.isArray(link))
      reply.header(
        'link',
        link.map((value) => rebaseLinkField(value, base)),
      )
    return payload
  }
}

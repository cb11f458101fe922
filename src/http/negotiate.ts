// Proactive negotiation (RFC 9110 §12.5.1) with `negotiator`, which honours q-values, wildcards
// and specificity. Pure functions, unit-tested apart from Fastify.
import Negotiator from 'negotiator'

const charsetParameter = /;\s*charset\s*=\s*("[^"]*"|[^;,]*)/gi
const qParameter = /;\s*q\s*=\s*("[^"]*"|[^;,]*)/gi
const json = 'application/json'

// An absent or empty Accept means any type (RFC 9110 §12.5.1). A charset parameter says nothing
// about the type: JSON is always UTF-8 (RFC 8259 §8.1), and common clients send
// `application/json; charset=utf-8`.
const acceptField = (accept: string | undefined) =>
  accept === undefined || accept.trim() === '' ? '*/*' : accept.replace(charsetParameter, '')

/** The offer the Accept field prefers, or undefined when none is acceptable (406). */
export function preferredType(accept: string | undefined, offers: readonly string[]): string | undefined {
  return new Negotiator({ headers: { accept: acceptField(accept) } }).mediaType(offers)
}

/**
 * The Content-Type of the response: the offer the Accept field prefers, except that
 * `application/json` stands for the resource's own JSON type (`offers[0]`, a `+json` vendor
 * type) as CONTRACT.md §1 wants, unless the client refused that type explicitly: a response is
 * never labelled with a type the client gave q=0 (RFC 9110 §12.4.2: "not acceptable").
 * Undefined when no offer is acceptable (406).
 */
export function responseType(accept: string | undefined, offers: readonly string[]): string | undefined {
  let known = remembered.get(offers)
  if (!known) {
    known = new Map()
    remembered.set(offers, known)
  }
  const key = accept ?? ''
  if (known.has(key)) return known.get(key)
  const type = negotiate(acceptField(accept), offers)
  // Clients send few distinct Accept fields, and negotiator parses the field anew on every call
  // (5–9 µs here, against ~0.1 µs for a remembered answer). Bounded in entries and field length.
  if (key.length <= maxRememberedField) {
    if (known.size >= maxRemembered) known.clear()
    known.set(key, type)
  }
  return type
}

const maxRemembered = 256
const maxRememberedField = 256
/** Per list of offers (each operation has its own), Accept field → response type. */
const remembered = new WeakMap<readonly string[], Map<string, string | undefined>>()

function negotiate(field: string, offers: readonly string[]): string | undefined {
  // One Negotiator for the choice and for whether the resource's own type is acceptable.
  const acceptable = new Negotiator({ headers: { accept: field } }).mediaTypes(offers)
  const chosen = acceptable[0]
  const own = offers[0]
  if (chosen !== json || own === undefined || own === json || !own.endsWith('+json')) return chosen
  if (acceptable.includes(own) || !refused(field, own)) return own
  return json
}

/**
 * Whether some range of the field matches `type` only with q=0. negotiator leaves out alike an
 * offer whose best range has q=0 and one that no range matches; without the q-values, an offer
 * that some range matches is acceptable, so the difference tells the two apart.
 */
function refused(field: string, type: string): boolean {
  const unweighted = field.replace(qParameter, '')
  return new Negotiator({ headers: { accept: unweighted } }).mediaType([type]) !== undefined
}

export interface ContentType {
  readonly type: string
  readonly charset: string | undefined
}

/** `type/subtype; charset=x` → lower-cased essence and charset; undefined when unparseable. */
export function parseContentType(field: string | undefined): ContentType | undefined {
  if (field === undefined) return undefined
  const [essence = '', ...parameters] = field.split(';')
  const type = essence.trim().toLowerCase()
  if (!/^[\w.+-]+\/[\w.+-]+$/.test(type)) return undefined
  let charset: string | undefined
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=')
    if (name.trim().toLowerCase() === 'charset') charset = value.trim().replace(/^"|"$/g, '').toLowerCase()
  }
  return { type, charset }
}

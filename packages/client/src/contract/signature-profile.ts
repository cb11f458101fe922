// The request-signing profiles of HTTP Message Signatures (RFC 9421), as both sides of the wire need
// them: which components a signature covers, the time window, and how the signature base is
// written (RFC 9421 §2.5). Pure: no Node APIs, so the client, the server and the tests share it.
//
// `ers-v2` (what clients sign with) covers what `ers-v1` covers and also the fields that decide
// what a write does beyond its target and body: If-Match and If-None-Match (RFC 9110 §13.1: an
// intermediary that strips If-Match turns a conditional PUT into a lost update) and
// Idempotency-Key (swapped, a retry creates twice). `ers-v1` stays accepted for requests that
// carry none of them.

/** The `tag` parameter of the profile clients sign with (RFC 9421 §2.3). */
export const signatureTag = 'ers-v2'
/** The earlier profile, accepted only on requests that carry none of `protectedFields`. */
export const legacySignatureTag = 'ers-v1'
/** Every tag a server accepts. */
export const signatureTags: readonly string[] = [signatureTag, legacySignatureTag]
/** The only algorithm accepted; a signature may leave `alg` out (RFC 9421 §3.3.3). */
export const signatureAlgorithm = 'hmac-sha256'

/** Covered components, in this order, of a request without a body. */
export const componentsWithoutBody = ['@method', '@authority', '@path', '@query'] as const
/** Covered components, in this order, of a request with a body. */
export const componentsWithBody = [...componentsWithoutBody, 'content-type', 'content-digest'] as const

/** Fields that `ers-v2` covers, in this order, after the others, each when the request carries it. */
export const protectedFields = ['if-match', 'if-none-match', 'idempotency-key'] as const
export type ProtectedField = (typeof protectedFields)[number]

/**
 * The components a signature of profile `tag` must cover, in order, for a request with or without
 * a body that carries the `carried` protected fields (`ers-v1`: none of them is covered).
 */
export function coveredComponents(
  tag: string,
  hasBody: boolean,
  carried: readonly ProtectedField[],
): readonly string[] {
  const base = hasBody ? componentsWithBody : componentsWithoutBody
  if (tag === legacySignatureTag) return base
  return [...base, ...protectedFields.filter((field) => carried.includes(field))]
}

/** How old `created` may be, and how far ahead of the server's clock, in seconds. */
export const maxSignatureAgeSeconds = 300
export const maxClockSkewSeconds = 60
/** How long a `(keyid, nonce)` pair is remembered: past this, `created` alone refuses a replay. */
export const nonceLifetimeSeconds = maxSignatureAgeSeconds + maxClockSkewSeconds
/** A nonce carries at least 128 random bits, written as base64url (22 characters or more). */
export const nonceSyntax = /^[A-Za-z0-9_-]{22,128}$/

/** One covered component: its identifier (a field name in lower case, or a derived `@…` name) and value. */
export interface CoveredComponent {
  readonly name: string
  readonly value: string
}

/** A signature parameter (RFC 9421 §2.3): a string, or an integer such as `created`. */
export type SignatureParameter = readonly [name: string, value: string | number]

const printableAscii = /^[\x20-\x7e]*$/
const escapable = /[\\"]/
const escapables = /[\\"]/g

/** RFC 8941 §4.1.6: an sf-string; only printable ASCII can be one. */
export function serializeString(text: string): string {
  if (!printableAscii.test(text)) throw new RangeError(`not an RFC 8941 string: ${JSON.stringify(text)}`)
  return `"${escapable.test(text) ? text.replace(escapables, '\\$&') : text}"`
}

// The server runs the two functions below on every signed request, so they build their strings by
// concatenation: the arrays of map and join were a third of a verification's garbage.

/**
 * The value of a signature in Signature-Input, which is also the `@signature-params` line of its
 * base (RFC 9421 §2.3): the inner list of component identifiers, then the parameters in order.
 */
export function serializeSignatureParams(
  components: readonly string[],
  parameters: readonly SignatureParameter[],
): string {
  let list = ''
  for (const component of components) list += (list && ' ') + serializeString(component)
  let text = `(${list})`
  for (const [name, value] of parameters) {
    if (typeof value === 'number' && !Number.isSafeInteger(value))
      throw new RangeError(`${name}: not an integer`)
    text += `;${name}=${typeof value === 'number' ? String(value) : serializeString(value)}`
  }
  return text
}

/**
 * The signature base (RFC 9421 §2.5): one line `"<name>": <value>` per covered component, in
 * order, then `"@signature-params": <params>`; lines end with LF, the last one with nothing.
 */
export function signatureBase(components: readonly CoveredComponent[], signatureParams: string): string {
  let base = ''
  for (const { name, value } of components) base += `${serializeString(name)}: ${value}\n`
  return `${base}"@signature-params": ${signatureParams}`
}

// The request-signing profile `ers-v1` of HTTP Message Signatures (RFC 9421), as both sides of the
// wire need it: which components a signature covers, the time window, and how the signature base
// is written (RFC 9421 §2.5). Pure: no Node APIs, so the client, the server and the tests share it.

/** The `tag` parameter every signature of this profile carries (RFC 9421 §2.3). */
export const signatureTag = 'ers-v1'
/** The only algorithm accepted; a signature may leave `alg` out (RFC 9421 §3.3.3). */
export const signatureAlgorithm = 'hmac-sha256'

/** Covered components, in this order, of a request without a body. */
export const componentsWithoutBody = ['@method', '@authority', '@path', '@query'] as const
/** Covered components, in this order, of a request with a body. */
export const componentsWithBody = [...componentsWithoutBody, 'content-type', 'content-digest'] as const

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

/** RFC 8941 §4.1.6: an sf-string; only printable ASCII can be one. */
export function serializeString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new RangeError(`not an RFC 8941 string: ${JSON.stringify(text)}`)
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`
}

/**
 * The value of a signature in Signature-Input, which is also the `@signature-params` line of its
 * base (RFC 9421 §2.3): the inner list of component identifiers, then the parameters in order.
 */
export function serializeSignatureParams(
  components: readonly string[],
  parameters: readonly SignatureParameter[],
): string {
  const params = parameters.map(([name, value]) => {
    if (typeof value === 'number' && !Number.isSafeInteger(value))
      throw new RangeError(`${name}: not an integer`)
    return `;${name}=${typeof value === 'number' ? String(value) : serializeString(value)}`
  })
  return `(${components.map(serializeString).join(' ')})${params.join('')}`
}

/**
 * The signature base (RFC 9421 §2.5): one line `"<name>": <value>` per covered component, in
 * order, then `"@signature-params": <params>`; lines end with LF, the last one with nothing.
 */
export function signatureBase(components: readonly CoveredComponent[], signatureParams: string): string {
  return [
    ...components.map(({ name, value }) => `${serializeString(name)}: ${value}`),
    `"@signature-params": ${signatureParams}`,
  ].join('\n')
}

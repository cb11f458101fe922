// Signs a request with an API key by the profile `ers-v2` (CONTRACT.md §4; RFC 9421 with
// hmac-sha256): returns the Signature-Input, Signature and (with a body) Content-Digest fields to
// send along. If-Match, If-None-Match and Idempotency-Key among `headers` are covered too, so
// they must be sent exactly as given here. Imports only node:crypto and contract/, so any client of the service can use it.
import { createHash, createHmac, randomBytes } from 'node:crypto'
import {
  type CoveredComponent,
  coveredComponents,
  type ProtectedField,
  protectedFields,
  type SignatureParameter,
  serializeSignatureParams,
  signatureAlgorithm,
  signatureBase,
  signatureTag,
} from './contract/signature-profile.ts'

export interface SignRequestInput {
  readonly method: string
  /** The URL the request is sent to, as the server (or the proxy in front of it) receives it. */
  readonly url: string | URL
  /**
   * The request's header fields; with a body, Content-Type must be among them. If-Match,
   * If-None-Match and Idempotency-Key among them are signed.
   */
  readonly headers?: Readonly<Record<string, string>>
  /** The exact body bytes (a string is sent as UTF-8); absent or empty: no body. */
  readonly body?: Uint8Array | string
  /** The key id and secret exactly as `ers keys add` printed them. */
  readonly keyId: string
  readonly secret: string
  /** Seconds since the epoch; now by default. */
  readonly created?: number
  /** At least 128 random bits as base64url; a new one by default (never reuse one). */
  readonly nonce?: string
  /** The signature's label in both fields (any key; `sig1` by default). */
  readonly label?: string
  /** Whether to send `alg="hmac-sha256"` (optional in the profile; sent by default). */
  readonly withAlg?: boolean
}

export interface SignedFields {
  readonly 'signature-input': string
  readonly signature: string
  /** Present when the request has a body. */
  readonly 'content-digest'?: string
}

/** RFC 9530 §2: the Content-Digest field of these exact bytes, with sha-256. */
export function contentDigest(body: Uint8Array | string): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`
}

/** RFC 9421 §3.3.3: HMAC-SHA256 of the signature base under `key`, as base64. */
export function hmacSha256(key: Uint8Array | string, base: string): string {
  return createHmac('sha256', key).update(base, 'utf8').digest('base64')
}

/** The component values of the profile for a request to `url` (RFC 9421 §2.2 and §2.1). */
export function profileComponents(
  method: string,
  url: URL,
  body?: { readonly contentType: string; readonly contentDigest: string },
  fields: Readonly<Partial<Record<ProtectedField, string>>> = {},
): CoveredComponent[] {
  const derived: CoveredComponent[] = [
    { name: '@method', value: method },
    // The WHATWG URL already lower-cases the host and drops a default port (RFC 9110 §4.2.3).
    { name: '@authority', value: url.host },
    { name: '@path', value: url.pathname || '/' },
    // An absent (or empty) query is a lone `?` (RFC 9421 §2.2.7).
    { name: '@query', value: url.search || '?' },
  ]
  const protectedComponents = protectedFields.flatMap((name) => {
    const value = fields[name]
    return value === undefined ? [] : [{ name, value: value.trim() }]
  })
  if (!body) return [...derived, ...protectedComponents]
  return [
    ...derived,
    { name: 'content-type', value: body.contentType.trim() },
    { name: 'content-digest', value: body.contentDigest },
    ...protectedComponents,
  ]
}

export function signRequest(input: SignRequestInput): SignedFields {
  const url = typeof input.url === 'string' ? new URL(input.url) : input.url
  const bytes = typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : input.body
  const hasBody = bytes !== undefined && bytes.length > 0
  const field = (wanted: string) =>
    Object.entries(input.headers ?? {}).find(([name]) => name.toLowerCase() === wanted)?.[1]
  const contentType = field('content-type')
  const carried: Partial<Record<ProtectedField, string>> = {}
  for (const name of protectedFields) {
    const value = field(name)
    if (value !== undefined) carried[name] = value
  }
  if (hasBody && contentType === undefined) throw new TypeError('a request with a body needs a Content-Type')
  const digest = hasBody ? contentDigest(bytes) : undefined
  const components = profileComponents(
    input.method,
    url,
    hasBody && contentType !== undefined && digest !== undefined
      ? { contentType, contentDigest: digest }
      : undefined,
    carried,
  )
  const parameters: SignatureParameter[] = [
    ['created', input.created ?? Math.floor(Date.now() / 1000)],
    ['keyid', input.keyId],
    ['nonce', input.nonce ?? randomBytes(16).toString('base64url')],
    ['tag', signatureTag],
    ...(input.withAlg === false ? [] : [['alg', signatureAlgorithm] as const]),
  ]
  const names = coveredComponents(
    signatureTag,
    hasBody,
    protectedFields.filter((name) => name in carried),
  )
  const params = serializeSignatureParams(names, parameters)
  // The HMAC key is the secret's own ASCII bytes, as printed (CONTRACT.md §4).
  const signature = hmacSha256(Buffer.from(input.secret, 'latin1'), signatureBase(components, params))
  const label = input.label ?? 'sig1'
  return {
    'signature-input': `${label}=${params}`,
    signature: `${label}=:${signature}:`,
    ...(digest !== undefined && { 'content-digest': digest }),
  }
}

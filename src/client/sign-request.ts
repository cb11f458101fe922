// Signs a request with an API key by the profile `ers-v1` (CONTRACT.md §4; RFC 9421 with
// hmac-sha256): returns the Signature-Input, Signature and (with a body) Content-Digest fields to
// send along. Imports only node:crypto and contract/, so any client of the service can use it.
import { createHash, createHmac, randomBytes } from 'node:crypto'
import {
  type CoveredComponent,
  componentsWithBody,
  componentsWithoutBody,
  type SignatureParameter,
  serializeSignatureParams,
  signatureAlgorithm,
  signatureBase,
  signatureTag,
} from '../contract/signature-profile.ts'

export interface SignRequestInput {
  readonly method: string
  /** The URL the request is sent to, as the server (or the proxy in front of it) receives it. */
  readonly url: string | URL
  /** The request's header fields; with a body, Content-Type must be among them. */
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
): CoveredComponent[] {
  const derived: CoveredComponent[] = [
    { name: '@method', value: method },
    // The WHATWG URL already lower-cases the host and drops a default port (RFC 9110 §4.2.3).
    { name: '@authority', value: url.host },
    { name: '@path', value: url.pathname || '/' },
    // An absent (or empty) query is a lone `?` (RFC 9421 §2.2.7).
    { name: '@query', value: url.search || '?' },
  ]
  if (!body) return derived
  return [
    ...derived,
    { name: 'content-type', value: body.contentType.trim() },
    { name: 'content-digest', value: body.contentDigest },
  ]
}

export function signRequest(input: SignRequestInput): SignedFields {
  const url = typeof input.url === 'string' ? new URL(input.url) : input.url
  const bytes = typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : input.body
  const hasBody = bytes !== undefined && bytes.length > 0
  const contentType = Object.entries(input.headers ?? {}).find(
    ([name]) => name.toLowerCase() === 'content-type',
  )?.[1]
  if (hasBody && contentType === undefined) throw new TypeError('a request with a body needs a Content-Type')
  const digest = hasBody ? contentDigest(bytes) : undefined
  const components = profileComponents(
    input.method,
    url,
    hasBody && contentType !== undefined && digest !== undefined
      ? { contentType, contentDigest: digest }
      : undefined,
  )
  const parameters: SignatureParameter[] = [
    ['created', input.created ?? Math.floor(Date.now() / 1000)],
    ['keyid', input.keyId],
    ['nonce', input.nonce ?? randomBytes(16).toString('base64url')],
    ['tag', signatureTag],
    ...(input.withAlg === false ? [] : [['alg', signatureAlgorithm] as const]),
  ]
  const names = hasBody ? componentsWithBody : componentsWithoutBody
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

// The pieces of the OpenAPI document that every operation shares: the problem responses, the
// response and request fields, the security schemes and the named schemas. Plain data; which
// operation uses which is decided from its traits in http/openapi.ts.
import { mediaTypes } from '../contract/media-types.ts'
import * as schemas from '../contract/schemas.ts'
import {
  componentsWithBody,
  componentsWithoutBody,
  legacySignatureTag,
  maxClockSkewSeconds,
  maxSignatureAgeSeconds,
  nonceLifetimeSeconds,
  protectedFields,
  signatureAlgorithm,
  signatureTag,
} from '../contract/signature-profile.ts'

/** A JSON value of the document (its schemas are TypeBox's, which are plain JSON Schema). */
export type Json = Record<string, unknown>

const text = (description: string): Json => ({ schema: { type: 'string' }, description })

/**
 * Response fields (OpenAPI Header Objects). Written out in each response rather than referred to:
 * a reference cannot say `required` beside it (OpenAPI 3.1 §4.8.23).
 */
export const headers: Record<string, Json> = {
  'X-Request-Id': text(
    'The request id: the one the request sent when it is short and plain ([A-Za-z0-9._:-]{1,128}), else a new UUID. Quote it when reporting a problem.',
  ),
  Vary: text('Every representation is chosen by Accept (and, with CORS on, Origin).'),
  ETag: text('The strong validator of the representation (RFC 9110 §8.8.3).'),
  Location: text('The path of the resource made, relative to the base URL.'),
  Link: text(
    'RFC 8288 links. On a collection page: first, prev, next and last, each as ?page=N&per_page=M with the filters; on the entry point: the links of the body.',
  ),
  Allow: text('The methods of the resource (RFC 9110 §10.2.1).'),
  'Accept-Post': text('Media types a POST body may have.'),
  'Accept-Patch': text('Media types a PATCH body may have (RFC 5789 §3.1).'),
  'Accept-Query': text('Media types a QUERY body may have.'),
  'Retry-After': text('Seconds to wait before trying again (RFC 9110 §10.2.3).'),
  RateLimit: text(
    'Requests left and seconds until the window ends, e.g. `"reads";r=1187;t=42` (draft-ietf-httpapi-ratelimit-headers, structured-field form). Sent when the request was counted against a limit.',
  ),
  'RateLimit-Policy': text(
    'The quota and window of that limit, e.g. `"reads";q=1200;w=60` (reads per client address, writes per user or key, failed credentials as "auth-failures").',
  ),
  'WWW-Authenticate': text(
    'The challenges: `Basic realm="events", charset="UTF-8"`, and, when request signing is on, `Signature realm="events", tag="ers-v1", alg="hmac-sha256"`.',
  ),
  'Accept-Signature': text(
    'When request signing is on: the signature a request must carry (RFC 9421 §5.1), its covered components and parameters.',
  ),
  'Cache-Control': text('How a cache may keep the answer.'),
}

const header = (name: string, required = false): Json => ({ ...headers[name], ...(required && { required }) })
/** The fields of a response that every answer carries (CONTRACT.md §1, §5). */
const everyResponse = () => ({ 'X-Request-Id': header('X-Request-Id', true), Vary: header('Vary', true) })

/** Headers of a response: the every-response ones, then `required` and `optional` by name. */
export function responseHeaders(required: readonly string[], optional: readonly string[] = []): Json {
  return {
    ...everyResponse(),
    ...Object.fromEntries(required.map((name) => [name, header(name, true)])),
    ...Object.fromEntries(optional.map((name) => [name, header(name)])),
  }
}

const problemContent = { [mediaTypes.problem]: { schema: { $ref: '#/components/schemas/Problem' } } }
const rateLimitFields = ['RateLimit', 'RateLimit-Policy']

/** A problem response: an RFC 9457 body, the every-response fields, and these others. */
export function problemResponse(
  description: string,
  required: readonly string[] = [],
  optional = rateLimitFields,
) {
  return { description, headers: responseHeaders(required, optional), content: problemContent }
}

/** The problem responses shared by many operations, as `#/components/responses/<status>`. */
export const sharedResponses: Record<string, Json> = {
  BadRequest: problemResponse(
    'The request is not well-formed (no Host, malformed percent-encoding), the body is not JSON or not I-JSON (a member name twice in one object, RFC 7493), a needed body is missing, or (on a collection) a parameter is unknown, out of range or given differently in the body and the query string.',
  ),
  Unauthorized: problemResponse(
    'Credentials are missing (on a write) or not valid. Wrong credentials are refused on reads too.',
    ['WWW-Authenticate'],
    ['Accept-Signature'],
  ),
  Forbidden: problemResponse('Valid credentials of a user who may not write (a reader).'),
  NotFound: problemResponse('No such resource; also any id that is not a positive decimal integer.'),
  NotAcceptable: problemResponse('No media type on offer is acceptable; the detail lists those on offer.'),
  PreconditionFailed: problemResponse(
    'If-Match (or If-None-Match) does not hold for the current representation.',
  ),
  ContentTooLarge: problemResponse('The body is larger than the limit (16 KiB by default).'),
  UnsupportedMediaType: problemResponse(
    'The body has a media type this operation does not take, or the operation takes no body. Accept-Post, Accept-Patch or Accept-Query lists what is taken.',
    [],
    [...rateLimitFields, 'Accept-Post', 'Accept-Patch', 'Accept-Query'],
  ),
  UnprocessableContent: problemResponse(
    'A field is invalid or unknown; `errors` points at each (JSON Pointer). POST /events: an Idempotency-Key reused with another body.',
  ),
  TooManyRequests: problemResponse(
    'A rate limit was hit: reads per client address, writes per user or key, or failed credentials.',
    ['Retry-After'],
  ),
  InternalServerError: problemResponse('A bug; logged with the request id, which the detail quotes.'),
  ServiceUnavailable: problemResponse(
    'The database cannot be reached or is busy, the service is overloaded, a read (a search of /events) ran out of its time budget, or (the change feed) too many feeds are open. The service recovers by itself.',
    ['Retry-After'],
  ),
}

const signatureDescription = [
  `HTTP Message Signatures (RFC 9421), profile \`${signatureTag}\`, with an API key made by \`ers keys add\`. OpenAPI has no type for RFC 9421; this entry names the \`Signature\` field only to list the scheme. A signed request carries:`,
  '',
  `- \`Signature-Input: sig1=(${componentsWithoutBody.map((c) => `"${c}"`).join(' ')});created=<unix seconds>;keyid="<key id>";nonce="<≥128 random bits, base64url>";tag="${signatureTag}"\` (\`alg\`, if present, must be \`${signatureAlgorithm}\`);`,
  `- for a request with a body the covered components are \`(${componentsWithBody.map((c) => `"${c}"`).join(' ')})\` and \`Content-Digest: sha-256=:<base64 of SHA-256 of the exact body bytes>:\` (RFC 9530);`,
  `- then, in this order, each of ${protectedFields.map((c) => `\`"${c}"\``).join(', ')} that the request carries (an intermediary can then neither strip nor change a precondition or an idempotency key);`,
  `- \`Signature: sig1=:<base64 HMAC-SHA256 of the signature base (RFC 9421 §2.5), keyed with the secret's ASCII bytes>:\`.`,
  '',
  `\`created\` may be at most ${maxSignatureAgeSeconds} s old and ${maxClockSkewSeconds} s ahead; a \`(keyid, nonce)\` pair is accepted once (remembered ${nonceLifetimeSeconds} s on every instance). A valid signature counts as the key's user, in place of Basic. Any failed rule: 401 with a \`Signature\` challenge and Accept-Signature; failures count toward the same per-address limit as wrong passwords (429). The earlier profile \`${legacySignatureTag}\` (without the three fields) is still accepted on requests that carry none of them. Offered when the server is started with KEY_ENCRYPTION_KEY; otherwise a signed request is 401 saying that signed requests are not enabled.`,
].join('\n')

export const securitySchemes: Record<string, Json> = {
  basic: {
    type: 'http',
    scheme: 'basic',
    description:
      'HTTP Basic (RFC 7617), realm "events", UTF-8. Users are made with `ers users add`; an editor may write, a reader only read.',
  },
  signature: { type: 'apiKey', in: 'header', name: 'Signature', description: signatureDescription },
}

/**
 * The schemas of the contract under their names in schemas.ts, so that the document refers to
 * `#/components/schemas/Event` where the routes use `Event`.
 */
export const namedSchemas: ReadonlyMap<object, string> = new Map(
  Object.entries(schemas).flatMap(([name, value]) =>
    typeof value === 'object' && value !== null && 'type' in value ? [[value as object, name]] : [],
  ),
)

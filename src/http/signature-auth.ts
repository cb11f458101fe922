// Request signatures (CONTRACT.md §4, profiles `ers-v2` and `ers-v1` of RFC 9421) as an
// authentication scheme tried after Basic (a request with an Authorization field is Basic's to
// judge): the API key's principal when the request carries a valid signature, nothing when it
// carries none, a 401 for any other. Signing is on when KEY_ENCRYPTION_KEY is set (without it no
// secret can be opened); then every 401 also carries its challenge and Accept-Signature. With
// signing off, a signed request is told so (401), rather than that it lacks credentials.
//
// A failed verification counts against the client's address under the same rule and counter as a
// wrong password (auth/failed-attempts.ts): past the limit, signed requests from that address are
// answered 429 before anything is verified.
//
// What the server takes as the signed request target: `@authority` is the Host field, and `@path`
// and `@query` the request target exactly as received (RFC 9421 §2.2.6: never percent-decoded).
// Behind a proxy trusted by TRUST_PROXY, the client signs the URL it sent to the proxy: then
// `@authority` is the proxy's X-Forwarded-Host and `@path` is X-Forwarded-Prefix followed by the
// path, by the same validated values that Link and Location use (http/forwarded.ts); the default
// port of X-Forwarded-Proto's scheme is left out, as RFC 9110 §4.2.3 normalises.
import { createSecretKey } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { type AttemptCounter, addressKey, TooManyAttempts } from '../auth/failed-attempts.ts'
import { RememberedKeys } from '../auth/remembered-keys.ts'
import { keyBytes } from '../config.ts'
import {
  coveredComponents,
  type ProtectedField,
  protectedFields,
  serializeSignatureParams,
  signatureAlgorithm,
  signatureTag,
} from '../contract/signature-profile.ts'
import { DomainError } from '../domain/errors.ts'
import type { User } from '../domain/types.ts'
import type { EventStore } from '../store/event-store.ts'
import type { AnswerStep } from './answer-steps.ts'
import { basicChallenge } from './authenticate.ts'
import { hasContent } from './body.ts'
import { lastValue, parseHost, parsePrefix, parseProto, type TrustFunction } from './forwarded.ts'
import { type SignedMessage, verifySignature } from './signature-verify.ts'
import { signatureNotValid } from './signed-body.ts'

/** An authentication scheme as http/authenticate.ts tries them in turn. */
export interface SignatureScheme {
  readonly challenge: string
  /**
   * undefined when the request carries no signature; the key's principal when it is valid; else
   * rejects. With `deferrable`, an editor's key comes back `unconfirmed`, its nonce unspent
   * (request.unspentNonce): the write confirms and spends them (http/authenticate.ts confirmedWrite).
   */
  identify(request: FastifyRequest, deferrable?: boolean): Promise<User> | undefined
}

export interface SignatureSettings {
  readonly store: Pick<EventStore, 'findApiKey' | 'rememberNonce'>
  /** KEY_ENCRYPTION_KEY as configured; signing is off without it. */
  readonly keyEncryptionKey: string | undefined
  readonly trust: TrustFunction | undefined
  /** Failed authentications per client address, shared with Basic; unlimited when absent. */
  readonly attempts?: AttemptCounter
  /** Epoch milliseconds (tests may move the clock). */
  readonly now?: () => number
  /** How long an editor's key is remembered for writes that confirm it themselves (AUTH_CACHE_TTL_MS); 0: never. */
  readonly rememberKeysMs?: number
}

/** RFC 9110 §11.6.1 challenge for the signature scheme (RFC 9421 defines no scheme name of its own). */
export const signatureChallenge = `Signature realm="events", tag="${signatureTag}", alg="${signatureAlgorithm}"`

/**
 * The signature scheme, to be tried after Basic, with what it needs around it: the check of the
 * body against the signed digest (signed-body.ts, called by the body parser with the bytes) and
 * Accept-Signature (RFC 9421 §5.1) on every 401. None when signing is off.
 */
export function registerSignatures(
  app: FastifyInstance,
  settings: SignatureSettings,
): {
  readonly schemes: SignatureScheme[]
  /** The step (answer-steps.ts) that puts both challenges and Accept-Signature on every 401. */
  readonly challenges?: AnswerStep
} {
  const encryptionKey =
    settings.keyEncryptionKey === undefined ? undefined : keyBytes(settings.keyEncryptionKey)
  app.decorateRequest('signedBodyDigest', null)
  app.decorateRequest('signatureFailed', null)
  app.decorateRequest('unspentNonce', null)
  if (!encryptionKey) return { schemes: [signingOff] }
  const { attempts, store } = settings
  const now = settings.now ?? Date.now
  const keys = new RememberedKeys(settings.rememberKeysMs ?? 0, now)
  // A KeyObject, made once: the cheaper form on every request (auth/api-key-secrets.ts openSecret).
  const verifying = { store, encryptionKey: createSecretKey(encryptionKey), now, keys }

  // It runs for every answer and mostly does nothing.
  const challenges: AnswerStep = (request, reply, payload) => {
    if (reply.statusCode === 401) {
      // A body that did not match its digest is refused by the parser, where no scheme sets the challenges.
      if (!reply.hasHeader('www-authenticate')) {
        reply.header('www-authenticate', `${basicChallenge}, ${signatureChallenge}`)
      }
      reply.header('accept-signature', acceptSignature(hasContent(request), carriedFields(request)))
    }
    return payload
  }

  const scheme: SignatureScheme = {
    challenge: signatureChallenge,
    identify(request, deferrable = false) {
      const signatureInput = request.headers['signature-input']
      const signature = request.headers.signature
      if (signatureInput === undefined && signature === undefined) return undefined
      return verified(request, signatureInput, signature, deferrable)
    },
  }
  return { schemes: [scheme], challenges }

  async function verified(
    request: FastifyRequest,
    signatureInput: string | string[] | undefined,
    signature: string | string[] | undefined,
    deferrable: boolean,
  ): Promise<User> {
    const client = [addressKey(request.ip)]
    // As for passwords: an address at the limit is refused before any work, valid signature or not.
    const wait = attempts ? await attempts.retryAfter(client) : 0
    if (attempts && wait > 0) throw new TooManyAttempts(wait, attempts.policy)
    const verdict = await verifySignature(
      {
        ...targetOf(request, settings.trust),
        signatureInput: joined(signatureInput),
        signature: joined(signature),
        hasBody: hasContent(request),
        contentType: request.headers['content-type'],
        contentDigest: joined(request.headers['content-digest']),
        fields: protectedValues(request),
      },
      verifying,
      deferrable,
    )
    if (!verdict.ok) {
      request.log.info({ rule: verdict.rule, keyId: verdict.keyId }, 'request signature refused')
      await attempts?.take(client)
      throw verdict.detail === undefined
        ? signatureNotValid()
        : new DomainError('unauthenticated', verdict.detail)
    }
    request.signedBodyDigest = verdict.bodyDigest ?? null
    // The body is checked against the signed digest only as it arrives: a mismatch fails then.
    if (attempts && verdict.bodyDigest) {
      request.signatureFailed = () => {
        attempts
          .take(client)
          .catch((error: unknown) => request.log.warn({ err: error }, 'failed attempt not counted'))
      }
    }
    const { key, unspent } = verdict
    // A key is a principal of its own. Its name cannot be a user's (RFC 7617 user-ids hold no
    // ":"), so what is scoped by principal (idempotency keys) never mixes a key with a user.
    const principal: User = { id: 0, name: `key:${key.id}`, role: key.role, passwordHash: '' }
    if (!unspent) return principal
    request.unspentNonce = async (refusal) => {
      if (await store.rememberNonce(unspent.keyId, unspent.nonce, unspent.nonceExpiresAt)) return refusal
      // A replay: refused as verification refuses one, counted as a failed attempt, unless
      // refused as unauthenticated already (a body that failed its digest, counted then).
      if (refusal instanceof DomainError && refusal.code === 'unauthenticated') return refusal
      request.log.info(
        { rule: 'the nonce was used before', keyId: unspent.keyId },
        'request signature refused',
      )
      await attempts?.take(client)
      return signatureNotValid()
    }
    return { ...principal, unconfirmed: true, signature: unspent }
  }
}

/**
 * With signing off (no KEY_ENCRYPTION_KEY), a request that carries a signature is told that signed
 * requests are not enabled here: "needs credentials" would send its author looking for a fault in
 * the signature. No challenge of its own: the server offers no signature scheme.
 */
const signingOff: SignatureScheme = {
  challenge: '',
  identify(request) {
    if (request.headers['signature-input'] === undefined && request.headers.signature === undefined) {
      return undefined
    }
    return Promise.reject(
      new DomainError(
        'unauthenticated',
        'signed requests are not enabled on this server; send HTTP Basic credentials instead',
      ),
    )
  },
}

/** The protected fields (signature-profile.ts) the request carries, each as one value. */
function protectedValues(request: FastifyRequest): Partial<Record<ProtectedField, string>> {
  const values: Partial<Record<ProtectedField, string>> = {}
  for (const field of protectedFields) {
    const value = request.headers[field]
    if (value !== undefined) values[field] = joined(value)
  }
  return values
}

const carriedFields = (request: FastifyRequest): ProtectedField[] =>
  protectedFields.filter((field) => request.headers[field] !== undefined)

/** RFC 9421 §5.1: the signature this service wants for such a request. */
function acceptSignature(hasBody: boolean, carried: readonly ProtectedField[]): string {
  const components = coveredComponents(signatureTag, hasBody, carried)
  // `created` without a value asks for one; a nonce and keyid are the signer's own (CONTRACT.md §4).
  return `sig1=${serializeSignatureParams(components, [])};created;tag="${signatureTag}";alg="${signatureAlgorithm}"`
}

const joined = (field: string | string[] | undefined): string =>
  Array.isArray(field) ? field.join(', ') : (field ?? '')

/** `@authority`, `@path`, `@query` and `@method` as this server received them (see the top of the file). */
function targetOf(
  request: FastifyRequest,
  trust: TrustFunction | undefined,
): Pick<SignedMessage, 'method' | 'authority' | 'path' | 'query'> {
  const socket = request.raw.socket
  const encrypted = socket !== undefined && 'encrypted' in socket && socket.encrypted === true
  const viaProxy =
    trust !== undefined && socket?.remoteAddress !== undefined && trust(socket.remoteAddress, 0)
  const target = request.raw.url ?? '/'
  const mark = target.indexOf('?')
  let path = mark < 0 ? target : target.slice(0, mark)
  const query = mark < 0 ? '?' : target.slice(mark)
  let host = lastValue(request.headers.host) ?? ''
  let scheme = encrypted ? 'https' : 'http'
  if (viaProxy) {
    host = parseHost(lastValue(request.headers['x-forwarded-host']) ?? '') ?? host
    scheme = parseProto(lastValue(request.headers['x-forwarded-proto']) ?? '') ?? scheme
    path = (parsePrefix(lastValue(request.headers['x-forwarded-prefix']) ?? '') ?? '') + path
  }
  return {
    method: request.raw.method ?? request.method,
    authority: authority(host, scheme),
    path: path || '/',
    query,
  }
}

/** RFC 9421 §2.2.3 with RFC 9110 §4.2.3: the host in lower case, without its scheme's default port. */
function authority(host: string, scheme: string): string {
  const lower = host.toLowerCase()
  const defaultPort = scheme === 'https' ? ':443' : ':80'
  return lower.endsWith(defaultPort) ? lower.slice(0, -defaultPort.length) : lower
}

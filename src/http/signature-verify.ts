// Verification of a request signature by the profiles `ers-v2` and `ers-v1` (CONTRACT.md §4, RFC
// 9421): every rule, cheapest first, and which one failed. The HTTP glue (what the request's components are,
// hooks, the 401) is in signature-auth.ts.
import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto'
import {
  type BareItem,
  type InnerList,
  type Item,
  type Parameters,
  parseDictionary,
} from 'structured-headers'
import { keyIdSyntax, openSigningKey } from '../auth/api-key-secrets.ts'
import type { RememberedKeys } from '../auth/remembered-keys.ts'
import {
  type CoveredComponent,
  coveredComponents,
  legacySignatureTag,
  maxClockSkewSeconds,
  maxSignatureAgeSeconds,
  nonceLifetimeSeconds,
  nonceSyntax,
  type ProtectedField,
  protectedFields,
  type SignatureParameter,
  serializeSignatureParams,
  signatureAlgorithm,
  signatureBase,
  signatureTags,
} from '../contract/signature-profile.ts'
import { mayWrite, type SignatureCheck } from '../domain/types.ts'
import type { ApiKey, EventStore } from '../store/event-store.ts'

/** What of a request the signature is checked against, as the server received it. */
export interface SignedMessage {
  readonly signatureInput: string
  readonly signature: string
  readonly method: string
  /** RFC 9421 §2.2.3: host and port, normalised (lower case, no default port). */
  readonly authority: string
  /** RFC 9421 §2.2.6: the path as sent, never percent-decoded; `/` when empty. */
  readonly path: string
  /** RFC 9421 §2.2.7: the query with its `?`, or `?` alone. */
  readonly query: string
  /** Whether the request has content (RFC 9112 §6.3): then two more components are covered. */
  readonly hasBody: boolean
  readonly contentType: string | undefined
  readonly contentDigest: string | undefined
  /** The protected fields (If-Match…) the request carries, each as one value (lines joined by ", "). */
  readonly fields?: Readonly<Partial<Record<ProtectedField, string>>>
}

export interface VerifierDependencies {
  readonly store: Pick<EventStore, 'findApiKey' | 'rememberNonce'>
  /** KEY_ENCRYPTION_KEY; a KeyObject is the cheaper form (auth/api-key-secrets.ts openSecret). */
  readonly encryptionKey: Buffer | KeyObject
  /** Epoch milliseconds. */
  readonly now: () => number
  /** Keys remembered for deferrable verifications; every key is looked up without. */
  readonly keys?: RememberedKeys
}

export type Verdict =
  | {
      readonly ok: true
      readonly key: ApiKey
      /** The sha-256 of the body that Content-Digest names, to compare with the bytes that arrive. */
      readonly bodyDigest: Buffer | undefined
      /** A deferred verification's nonce and key, which the write spends and confirms. */
      readonly unspent?: SignatureCheck
    }
  | {
      readonly ok: false
      readonly rule: string
      readonly keyId?: string
      /** What the client is told, when more than "not valid" helps it (an uncovered field). */
      readonly detail?: string
    }

const allowedParameters = new Set(['created', 'keyid', 'nonce', 'tag', 'alg'])

const refuse = (rule: string, keyId?: string, detail?: string): Verdict => ({
  ok: false,
  rule,
  ...(keyId !== undefined && { keyId }),
  ...(detail !== undefined && { detail }),
})

/**
 * With `deferrable` (a write that confirms its credentials in its own statement), an editor's key
 * may come from deps.keys without a lookup, and its nonce is not spent here: the verdict carries
 * it `unspent`, for the write's statement to spend (store: SignatureCheck).
 */
export async function verifySignature(
  message: SignedMessage,
  deps: VerifierDependencies,
  deferrable = false,
): Promise<Verdict> {
  // RFC 8941 dictionaries; a field sent on several lines arrives joined by commas, which is the same.
  let inputs: Map<string, Item | InnerList>
  let signatures: Map<string, Item | InnerList>
  try {
    inputs = parseDictionary(message.signatureInput)
    signatures = parseDictionary(message.signature)
  } catch {
    return refuse('Signature-Input or Signature is not an RFC 8941 dictionary')
  }
  if (inputs.size !== 1 || signatures.size !== 1) return refuse('not exactly one signature')
  const [label, input] = inputs.entries().next().value as [string, Item | InnerList]
  const signed = signatures.get(label)
  if (!signed) return refuse(`Signature has no member "${label}"`)
  if (!isInnerList(input)) return refuse('the Signature-Input member is not an inner list')
  if (isInnerList(signed) || !(signed[0] instanceof ArrayBuffer)) {
    return refuse('the Signature member is not a byte sequence')
  }

  const [items, params] = input
  const tag = params.get('tag')
  if (typeof tag !== 'string' || !signatureTags.includes(tag)) {
    return refuse(`tag is not one of ${signatureTags.map((t) => `"${t}"`).join(', ')}`)
  }
  const carried = protectedFields.filter((field) => message.fields?.[field] !== undefined)
  if (tag === legacySignatureTag && carried.length > 0) {
    const detail = `a signature of profile ${legacySignatureTag} does not cover ${carried.join(', ')}, which this request carries; sign it with the current profile`
    return refuse(detail, undefined, detail)
  }
  const expected = coveredComponents(tag, message.hasBody, carried)
  if (!coversExactly(items, expected)) {
    const names = items.map(([name, componentParams]) =>
      typeof name === 'string' && componentParams.size === 0 ? name : undefined,
    )
    const uncovered = carried.find((field) => !names.includes(field))
    const absent = protectedFields.find((field) => names.includes(field) && !carried.includes(field))
    const detail =
      uncovered !== undefined
        ? `the request signature does not cover ${uncovered}, which this request carries`
        : absent !== undefined
          ? `the request signature covers ${absent}, which this request does not carry`
          : undefined
    return refuse(`covered components are not (${expected.join(' ')})`, undefined, detail)
  }

  const parameters = checkParameters(params, deps.now())
  if (typeof parameters === 'string') return refuse(parameters)
  const { keyId, nonce, signed: signedParameters } = parameters

  let bodyDigest: Buffer | undefined
  if (message.hasBody) {
    if (message.contentType === undefined) return refuse('Content-Type is covered but missing', keyId)
    bodyDigest = sha256Of(message.contentDigest)
    if (!bodyDigest) return refuse('Content-Digest has no sha-256 digest', keyId)
  }

  // The database only now, and a cheap syntax check first: a made-up key id costs no query.
  if (!keyIdSyntax.test(keyId)) return refuse('no such key', keyId)
  // A write that confirms the key in its own statement may take it as remembered: no lookup.
  const remembered = deferrable ? deps.keys?.recall(keyId) : undefined
  const key = remembered?.key ?? (await deps.store.findApiKey(keyId))
  if (!key || key.revokedAt !== undefined) deps.keys?.forget(keyId)
  if (!key) return refuse('no such key', keyId)
  if (key.revokedAt !== undefined) return refuse('the key is revoked', keyId)
  const signingKey = remembered?.signingKey ?? openSigningKey(key.sealedSecret, key.id, deps.encryptionKey)
  if (signingKey === undefined)
    return refuse('the stored secret does not open under KEY_ENCRYPTION_KEY', keyId)

  const components: CoveredComponent[] = expected.map((name) => ({
    name,
    value: componentValue(message, name),
  }))
  // RFC 9421 §2.3: @signature-params is the serialisation of the parsed Signature-Input member,
  // here by the profile's own serializer, the one the signing side uses: the member holds exactly
  // the expected component names and parameters that are strings or integers (checked above).
  const base = signatureBase(components, serializeSignatureParams(expected, signedParameters))
  const computed = createHmac('sha256', signingKey).update(base, 'utf8').digest()
  const received = Buffer.from(signed[0] as ArrayBuffer)
  if (received.length !== computed.length || !timingSafeEqual(received, computed)) {
    // As long as without the memory: the time of a refusal tells nobody which keys wrote lately.
    if (remembered) await deps.store.findApiKey(keyId)
    return refuse('the signature does not match', keyId)
  }

  if (!remembered) deps.keys?.remember(key, signingKey)

  // Only a verified signature spends its nonce: otherwise anyone could burn another key's nonces.
  const expiresAt = deps.now() + nonceLifetimeSeconds * 1000
  const { sealedSecret, ...apiKey } = key
  // An editor's write that confirms the key in its own statement spends the nonce there too.
  if (deferrable && mayWrite(key.role)) {
    const unspent = { keyId, sealedSecret, nonce, nonceExpiresAt: expiresAt }
    return { ok: true, key: apiKey, bodyDigest, unspent }
  }
  if (!(await deps.store.rememberNonce(keyId, nonce, expiresAt)))
    return refuse('the nonce was used before', keyId)
  return { ok: true, key: apiKey, bodyDigest }
}

function isInnerList(member: Item | InnerList): member is InnerList {
  return Array.isArray(member[0])
}

/** Whether the inner list names exactly the `expected` components, in order, without parameters. */
function coversExactly(items: InnerList[0], expected: readonly string[]): boolean {
  if (items.length !== expected.length) return false
  return items.every(([name, componentParams], i) => name === expected[i] && componentParams.size === 0)
}

/** A covered component's value in the message (RFC 9421 §2.1: a field's, trimmed, lines joined by ", "). */
function componentValue(message: SignedMessage, name: string): string {
  switch (name) {
    case '@method':
      return message.method
    case '@authority':
      return message.authority
    case '@path':
      return message.path
    case '@query':
      return message.query
    case 'content-type':
      return message.contentType?.trim() ?? ''
    case 'content-digest':
      return message.contentDigest?.trim() ?? ''
    default:
      return message.fields?.[name as ProtectedField]?.trim() ?? ''
  }
}

/** The parameters of the profile, in the order sent, or which rule they break. */
function checkParameters(
  params: Parameters,
  nowMs: number,
): { keyId: string; nonce: string; signed: SignatureParameter[] } | string {
  for (const name of params.keys()) {
    if (!allowedParameters.has(name)) return `unexpected parameter "${name}"`
  }
  const get = (name: string): BareItem | undefined => params.get(name)
  const alg = get('alg')
  if (alg !== undefined && alg !== signatureAlgorithm) return `alg is not ${signatureAlgorithm}`
  const keyId = get('keyid')
  if (typeof keyId !== 'string') return 'keyid is missing'
  const nonce = get('nonce')
  if (typeof nonce !== 'string' || !nonceSyntax.test(nonce)) {
    return 'nonce is missing or not 128 bits or more of base64url'
  }
  const created = get('created')
  if (typeof created !== 'number' || !Number.isSafeInteger(created)) return 'created is missing'
  const now = nowMs / 1000
  if (created < now - maxSignatureAgeSeconds) return `created is more than ${maxSignatureAgeSeconds} s old`
  if (created > now + maxClockSkewSeconds) return `created is more than ${maxClockSkewSeconds} s ahead`
  // Every parameter allowed is now known to be a string or an integer; one that were neither
  // would be left out, and the signature would then not match.
  const signed: SignatureParameter[] = []
  for (const [name, value] of params) {
    if (typeof value === 'string' || typeof value === 'number') signed.push([name, value])
  }
  return { keyId, nonce, signed }
}

/** The 32 bytes of the `sha-256` member of a Content-Digest field (RFC 9530 §2). */
function sha256Of(field: string | undefined): Buffer | undefined {
  if (field === undefined) return undefined
  try {
    const member = parseDictionary(field).get('sha-256')
    if (!member || !(member[0] instanceof ArrayBuffer)) return undefined
    const bytes = Buffer.from(member[0])
    return bytes.length === 32 ? bytes : undefined
  } catch {
    return undefined
  }
}

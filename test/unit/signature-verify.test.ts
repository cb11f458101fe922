// Which rule of the profile ers-v1 (CONTRACT.md §4) refuses a signature: the log names it, the
// client hears only "not valid". The rules are checked cheapest first, and nothing touches the
// store (or spends a nonce) before the HMAC has verified.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { signRequest } from '../../packages/client/src/sign-request.ts'
import { newKeyId, newKeySecret, sealSecret } from '../../src/auth/api-key-secrets.ts'
import { RememberedKeys } from '../../src/auth/remembered-keys.ts'
import { type SignedMessage, verifySignature } from '../../src/http/signature-verify.ts'
import type { StoredApiKey } from '../../src/store/event-store.ts'

const encryptionKey = randomBytes(32)
const nowMs = 1_800_000_000_000
const id = newKeyId()
const secret = newKeySecret()
const key: StoredApiKey = {
  id,
  name: 'test',
  role: 'editor',
  createdAt: 0,
  revokedAt: undefined,
  sealedSecret: sealSecret(secret, id, encryptionKey),
}

/** A store with this one key that remembers nonces, and counts what it is asked. */
function fakeStore(stored: StoredApiKey = key) {
  const nonces = new Set<string>()
  const calls = { find: 0, remember: 0 }
  return {
    calls,
    async findApiKey(keyId: string) {
      calls.find++
      return keyId === stored.id ? stored : undefined
    },
    async rememberNonce(keyId: string, nonce: string) {
      calls.remember++
      const fresh = !nonces.has(`${keyId} ${nonce}`)
      nonces.add(`${keyId} ${nonce}`)
      return fresh
    },
  }
}

const body = '{"title":"x"}'

function message(
  overrides: Partial<Parameters<typeof signRequest>[0]> = {},
  sent: Partial<SignedMessage> = {},
) {
  const fields = signRequest({
    method: 'POST',
    url: 'http://events.example/events',
    headers: { 'content-type': 'application/json' },
    body,
    keyId: id,
    secret,
    created: nowMs / 1000,
    ...overrides,
  })
  return {
    signatureInput: fields['signature-input'],
    signature: fields.signature,
    method: 'POST',
    authority: 'events.example',
    path: '/events',
    query: '?',
    hasBody: true,
    contentType: 'application/json',
    contentDigest: fields['content-digest'],
    ...sent,
  } satisfies SignedMessage
}

async function verdictOf(m: SignedMessage, store = fakeStore()) {
  return verifySignature(m, { store, encryptionKey, now: () => nowMs })
}

describe('verifySignature', () => {
  it('accepts a signature made by the helper and gives the key without its sealed secret', async () => {
    const store = fakeStore()
    const verdict = await verdictOf(message(), store)
    assert.equal(verdict.ok, true)
    if (verdict.ok) {
      assert.deepEqual(Object.keys(verdict.key).sort(), ['createdAt', 'id', 'name', 'revokedAt', 'role'])
      assert.equal(verdict.bodyDigest?.length, 32)
    }
    assert.deepEqual(store.calls, { find: 1, remember: 1 })
  })

  it('signs @signature-params in its RFC 8941 form, however the member was spaced', async () => {
    // The signer serialises the canonical form; spaces RFC 8941 allows inside the inner list and
    // after each ";" change nothing the signature covers.
    const signed = message()
    const spaced = signed.signatureInput
      .replace('=(', '=( ')
      .replace(' ', '  ')
      .replace(')', ' )')
      .replaceAll(';', '; ')
    assert.notEqual(spaced, signed.signatureInput)
    assert.equal((await verdictOf({ ...signed, signatureInput: spaced })).ok, true)
    // The same member with a parameter's value changed is another signature.
    const altered = signed.signatureInput.replace(
      /created=(\d+)/,
      (_, n: string) => `created=${Number(n) - 1}`,
    )
    const verdict = await verdictOf({ ...signed, signatureInput: altered })
    assert.deepEqual(verdict.ok ? undefined : verdict.rule, 'the signature does not match')
  })

  const cases: [string, SignedMessage, string][] = [
    ['a stale created', message({ created: nowMs / 1000 - 301 }), 'created is more than 300 s old'],
    ['a future created', message({ created: nowMs / 1000 + 61 }), 'created is more than 60 s ahead'],
    ['a short nonce', message({ nonce: 'c2hvcnQ' }), 'nonce is missing or not 128 bits or more of base64url'],
    [
      'no body components for a body',
      message({ body: undefined }),
      'covered components are not (@method @authority @path @query content-type content-digest)',
    ],
    [
      'a body the request lacks',
      message({}, { hasBody: false }),
      'covered components are not (@method @authority @path @query)',
    ],
    ['no Content-Digest', message({}, { contentDigest: undefined }), 'Content-Digest has no sha-256 digest'],
    ['no Content-Type', message({}, { contentType: undefined }), 'Content-Type is covered but missing'],
    [
      'a malformed field',
      message({}, { signatureInput: 'sig1=(' }),
      'Signature-Input or Signature is not an RFC 8941 dictionary',
    ],
    ['an unknown key', message({ keyId: newKeyId() }), 'no such key'],
    ['a made-up key id', message({ keyId: 'admin' }), 'no such key'],
    ['a wrong secret', message({ secret: newKeySecret() }), 'the signature does not match'],
    ['another path', message({}, { path: '/events/1' }), 'the signature does not match'],
  ]
  for (const [what, m, rule] of cases) {
    it(`refuses ${what}: "${rule}"`, async () => {
      const store = fakeStore()
      const verdict = await verdictOf(m, store)
      assert.deepEqual(verdict.ok ? undefined : verdict.rule, rule)
      // Only a signature that verified may spend a nonce.
      assert.equal(store.calls.remember, 0)
    })
  }

  it('refuses the cheap rules without asking the store', async () => {
    const store = fakeStore()
    for (const m of [message({ created: 0 }), message({}, { hasBody: false }), message({ keyId: 'admin' })]) {
      assert.equal((await verdictOf(m, store)).ok, false)
    }
    assert.deepEqual(store.calls, { find: 0, remember: 0 })
  })

  it('refuses a revoked key, and a sealed secret that does not open', async () => {
    const revoked = await verdictOf(message(), fakeStore({ ...key, revokedAt: 1 }))
    assert.equal(revoked.ok ? undefined : revoked.rule, 'the key is revoked')
    const otherSeal = await verdictOf(
      message(),
      fakeStore({ ...key, sealedSecret: sealSecret(secret, id, randomBytes(32)) }),
    )
    assert.equal(
      otherSeal.ok ? undefined : otherSeal.rule,
      'the stored secret does not open under KEY_ENCRYPTION_KEY',
    )
  })

  it('refuses the second use of a (keyid, nonce) pair', async () => {
    const store = fakeStore()
    const m = message({ nonce: 'AAAAAAAAAAAAAAAAAAAAAA' })
    assert.equal((await verdictOf(m, store)).ok, true)
    const again = await verdictOf(m, store)
    assert.equal(again.ok ? undefined : again.rule, 'the nonce was used before')
  })

  it('deferrable: an editor key remembered is not looked up, and the nonce is left unspent for the write', async () => {
    const store = fakeStore()
    const keys = new RememberedKeys(60_000, () => nowMs)
    const deps = { store, encryptionKey, now: () => nowMs, keys }
    const first = await verifySignature(message(), deps, true)
    assert.equal(first.ok && first.unspent?.keyId, id)
    assert.deepEqual(store.calls, { find: 1, remember: 0 })
    const second = await verifySignature(message(), deps, true)
    assert.equal(second.ok && second.unspent?.sealedSecret, key.sealedSecret)
    assert.deepEqual(store.calls, { find: 1, remember: 0 }, 'remembered: no lookup, no nonce spent')
    // Remembered with its secret opened: no KEY_ENCRYPTION_KEY is needed to verify it again.
    const unopenable = { ...deps, encryptionKey: randomBytes(32) }
    assert.equal((await verifySignature(message(), unopenable, true)).ok, true)
    assert.equal(
      ((await verifySignature(message(), unopenable)) as { rule?: string }).rule,
      'the stored secret does not open under KEY_ENCRYPTION_KEY',
      'looked up (not deferrable): opened anew',
    )
    assert.deepEqual(store.calls, { find: 2, remember: 0 })
    // A wrong signature costs the lookup it costs without the memory (its time tells nothing).
    const forged = await verifySignature(message({ secret: newKeySecret() }), deps, true)
    assert.equal(forged.ok ? undefined : forged.rule, 'the signature does not match')
    assert.deepEqual(store.calls, { find: 3, remember: 0 })
    // Not deferrable (a read, a POST): looked up and spent as ever.
    assert.equal((await verifySignature(message(), deps)).ok, true)
    assert.deepEqual(store.calls, { find: 4, remember: 1 })
    // A reader's key is never remembered, and spends its nonce at once.
    const readerStore = fakeStore({ ...key, role: 'reader' })
    const reader = { ...deps, store: readerStore, keys: new RememberedKeys(60_000, () => nowMs) }
    for (let i = 0; i < 2; i++) {
      const verdict = await verifySignature(message(), reader, true)
      assert.equal(verdict.ok && verdict.unspent, undefined)
    }
    assert.deepEqual(readerStore.calls, { find: 2, remember: 2 })
  })
})

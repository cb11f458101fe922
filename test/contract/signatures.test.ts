// Signed requests (CONTRACT.md §4, profiles ers-v2 and ers-v1 of RFC 9421 HTTP Message Signatures
// with hmac-sha256, RFC 9530 Content-Digest). Each test writes the signature base out by hand, so a
// mistake in the service's or the helper's base building cannot hide behind the other; the
// success case also checks that the helper (packages/client/src/sign-request.ts) makes the same fields.
// Two instances serve one database, so "once" and "revoked" are checked across instances.
import assert from 'node:assert/strict'
import { createHash, createHmac, randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { signRequest } from '../../packages/client/src/sign-request.ts'
import { newKeyId, newKeySecret, sealSecret } from '../../src/auth/api-key-secrets.ts'
import { keyBytes } from '../../src/config.ts'
import type { Role } from '../../src/domain/types.ts'
import type { KyselyStore } from '../../src/store/kysely-store.ts'
import { assertProblem, type Http, type Json, types } from '../support/contract.ts'
import { type Instance, startInstances } from '../support/instances.ts'
import { storeTargets } from '../support/stores.ts'

const keyEncryptionKey = randomBytes(32).toString('base64')
const basicChallenge = 'Basic realm="events", charset="UTF-8"'
const signatureChallenge = 'Signature realm="events", tag="ers-v2", alg="hmac-sha256"'

/** A key made as `ers keys add` makes one: its secret sealed under the service's KEY_ENCRYPTION_KEY. */
async function addKey(store: KyselyStore, role: Role = 'editor') {
  const id = newKeyId()
  const secret = newKeySecret()
  const sealedSecret = sealSecret(secret, id, keyBytes(keyEncryptionKey) as Buffer)
  await store.createApiKey({ id, name: `test ${role}`, role, sealedSecret, createdAt: Date.now() })
  return { id, secret }
}

const now = () => Math.floor(Date.now() / 1000)
const newNonce = () => randomBytes(16).toString('base64url')
const digestOf = (body: string) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`
const hmac = (secret: string, base: string) =>
  createHmac('sha256', Buffer.from(secret, 'ascii')).update(base).digest('base64')

interface HandSigned {
  readonly method: string
  readonly authority: string
  readonly path: string
  /** With its `?`, or `?` alone. */
  readonly query: string
  readonly body?: { readonly contentType: string; readonly digest: string }
  readonly key: { readonly id: string; readonly secret: string }
  readonly created?: number
  readonly nonce?: string
  /** The parameter list after the components, to write a broken one; the profile's by default. */
  readonly params?: string
  /** The component list, to write a broken one; the profile's by default. */
  readonly components?: string
  /** The profile's tag: ers-v2 by default. */
  readonly tag?: string
  /** Protected fields (If-Match, If-None-Match, Idempotency-Key) covered after the others, in order. */
  readonly covered?: readonly (readonly [name: string, value: string])[]
}

/**
 * Signature-Input and Signature for a request, the signature base written out line by line as
 * RFC 9421 §2.5 defines it.
 */
function handSign(s: HandSigned): { 'signature-input': string; signature: string } {
  const covered = s.covered ?? []
  const extra = covered.map(([name]) => ` "${name}"`).join('')
  const components =
    s.components ??
    (s.body
      ? `("@method" "@authority" "@path" "@query" "content-type" "content-digest"${extra})`
      : `("@method" "@authority" "@path" "@query"${extra})`)
  const params =
    s.params ??
    `;created=${s.created ?? now()};keyid="${s.key.id}";nonce="${s.nonce ?? newNonce()}";tag="${s.tag ?? 'ers-v2'}";alg="hmac-sha256"`
  const signatureParams = `${components}${params}`
  const base = [
    `"@method": ${s.method}`,
    `"@authority": ${s.authority}`,
    `"@path": ${s.path}`,
    `"@query": ${s.query}`,
    ...(s.body ? [`"content-type": ${s.body.contentType}`, `"content-digest": ${s.body.digest}`] : []),
    ...covered.map(([name, value]) => `"${name}": ${value}`),
    `"@signature-params": ${signatureParams}`,
  ].join('\n')
  return { 'signature-input': `sig1=${signatureParams}`, signature: `sig1=:${hmac(s.key.secret, base)}:` }
}

for (const target of storeTargets) {
  describe(`[${target.name}] signed requests (RFC 9421, profiles ers-v2 and ers-v1)`, () => {
    let close: () => Promise<void>
    let a: Instance
    let b: Instance
    let locationId: number
    let editorKey: { id: string; secret: string }

    before(async () => {
      // Many refusals from one address: the failure limit (tested on its own below) is set high.
      const started = await startInstances(target, { keyEncryptionKey, authFailuresPerMinute: '1000' }, 2)
      close = started.close
      ;[a, b] = started.instances as [Instance, Instance]
      locationId = (await a.store.createLocation({ name: 'Town Hall', address: '1 Market Square' })).id
      editorKey = await addKey(a.store)
    })
    after(() => close?.())

    const eventBody = (title = `Signed ${randomBytes(4).toString('hex')}`) =>
      JSON.stringify({ title, date: '2026-12-04T19:30:00Z', location_id: locationId })

    /** POST /events with this body, signed by hand with `overrides`, to instance `on` (a by default). */
    function signedPost(body: string, overrides: Partial<HandSigned> = {}, on: Instance = a) {
      const fields = handSign({
        method: 'POST',
        authority: on.authority,
        path: '/events',
        query: '?',
        body: { contentType: types.json, digest: digestOf(body) },
        key: editorKey,
        ...overrides,
      })
      return on.http('POST', '/events', {
        headers: { 'content-type': types.json, 'content-digest': digestOf(body), ...fields },
        body,
      })
    }

    const total = async () =>
      (
        await a.http('GET', '/events', { headers: { 'content-type': types.json }, body: '{"per_page":1}' })
      ).json().total as number

    /** 401 with a problem body, both challenges and what a signature should cover (RFC 9421 §5.1). */
    function assertRefused(
      res: Awaited<ReturnType<Http>>,
      hasBody: boolean,
      detail = 'the request signature is not valid',
      covered = '',
    ) {
      assertProblem(res, 401)
      assert.equal(res.json().detail, detail)
      assert.equal(res.header('www-authenticate'), `${basicChallenge}, ${signatureChallenge}`)
      assert.equal(
        res.header('accept-signature'),
        hasBody
          ? `sig1=("@method" "@authority" "@path" "@query" "content-type" "content-digest"${covered});created;tag="ers-v2";alg="hmac-sha256"`
          : `sig1=("@method" "@authority" "@path" "@query"${covered});created;tag="ers-v2";alg="hmac-sha256"`,
      )
    }

    it('accepts a POST signed by the profile in place of Basic (201), and the helper signs it the same way', async () => {
      const body = eventBody('Signed release party')
      const created = now()
      const nonce = newNonce()
      const byHand = handSign({
        method: 'POST',
        authority: a.authority,
        path: '/events',
        query: '?',
        body: { contentType: types.json, digest: digestOf(body) },
        key: editorKey,
        created,
        nonce,
      })
      const byHelper = signRequest({
        method: 'POST',
        url: `http://${a.authority}/events`,
        headers: { 'content-type': types.json },
        body,
        keyId: editorKey.id,
        secret: editorKey.secret,
        created,
        nonce,
      })
      assert.deepEqual(byHelper, { ...byHand, 'content-digest': digestOf(body) })
      const res = await a.http('POST', '/events', {
        headers: { 'content-type': types.json, ...byHelper },
        body,
      })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.json().title, 'Signed release party')
      assert.equal(res.header('www-authenticate'), undefined)
    })

    it('accepts a DELETE without a body, its query a lone "?" (RFC 9421 §2.2.7), and one with a query', async () => {
      const created = await signedPost(eventBody())
      assert.equal(created.status, 201, created.text)
      const id = (created.json() as Json).id
      const fields = handSign({
        method: 'DELETE',
        authority: a.authority,
        path: `/events/${id}`,
        query: '?',
        key: editorKey,
      })
      const res = await a.http('DELETE', `/events/${id}`, { headers: fields })
      assert.equal(res.status, 204, res.text)
      // Accepted without `alg` too: the profile makes it optional.
      const other = (await signedPost(eventBody())).json() as Json
      const noAlg = handSign({
        method: 'DELETE',
        authority: a.authority,
        path: `/events/${other.id}`,
        query: '?',
        key: editorKey,
        params: `;created=${now()};keyid="${editorKey.id}";nonce="${newNonce()}";tag="ers-v1"`,
      })
      assert.equal((await a.http('DELETE', `/events/${other.id}`, { headers: noAlg })).status, 204)
    })

    it('refuses a wrong secret and an unknown key id (401), and creates nothing', async () => {
      const before = await total()
      assertRefused(
        await signedPost(eventBody(), { key: { id: editorKey.id, secret: newKeySecret() } }),
        true,
      )
      assertRefused(
        await signedPost(eventBody(), { key: { id: newKeyId(), secret: editorKey.secret } }),
        true,
      )
      assertRefused(
        await signedPost(eventBody(), { key: { id: 'not-a-key', secret: editorKey.secret } }),
        true,
      )
      // The same with the helper: a secret that is not the key's.
      const body = eventBody()
      const fields = signRequest({
        method: 'POST',
        url: `http://${a.authority}/events`,
        headers: { 'content-type': types.json },
        body,
        keyId: editorKey.id,
        secret: newKeySecret(),
      })
      assertRefused(
        await a.http('POST', '/events', { headers: { 'content-type': types.json, ...fields }, body }),
        true,
      )
      assert.equal(await total(), before)
    })

    it('refuses a request whose method, authority, path or query differ from the signed ones', async () => {
      const event = (await signedPost(eventBody())).json() as Json
      const path = `/events/${event.id}`
      const signedAs = (over: Partial<HandSigned>) =>
        handSign({ method: 'DELETE', authority: a.authority, path, query: '?', key: editorKey, ...over })
      // Signed for PATCH, sent as DELETE.
      assertRefused(await a.http('DELETE', path, { headers: signedAs({ method: 'PATCH' }) }), false)
      // Signed for another host, or the same host on another port.
      assertRefused(
        await a.http('DELETE', path, { headers: signedAs({ authority: 'events.example' }) }),
        false,
      )
      assertRefused(await a.http('DELETE', path, { headers: signedAs({ authority: b.authority }) }), false)
      // Signed for another event.
      assertRefused(
        await a.http('DELETE', path, { headers: signedAs({ path: `/events/${event.id + 1000}` }) }),
        false,
      )
      // Signed with a query, sent with another.
      assertRefused(
        await a.http('DELETE', `${path}?force=1`, { headers: signedAs({ query: '?force=0' }) }),
        false,
      )
      assertRefused(await a.http('DELETE', `${path}?force=1`, { headers: signedAs({}) }), false)
      // The path as sent, never percent-decoded (RFC 9421 §2.2.6): /events/%31 is not /events/1.
      assertRefused(
        await a.http('DELETE', `/events/%3${String(event.id).slice(-1)}`, { headers: signedAs({}) }),
        false,
      )
      // The same with the helper: signed for another event's URL.
      const helper = signRequest({
        method: 'DELETE',
        url: `http://${a.authority}/events/${event.id + 1000}`,
        keyId: editorKey.id,
        secret: editorKey.secret,
      })
      assertRefused(await a.http('DELETE', path, { headers: { ...helper } }), false)
      assert.equal((await a.http('GET', path)).status, 200, 'the event is still there')
    })

    it('refuses a body other than the signed one, whether or not Content-Digest was changed with it', async () => {
      const before = await total()
      const signedBody = eventBody('Signed')
      const sentBody = eventBody('Tampered')
      const fields = handSign({
        method: 'POST',
        authority: a.authority,
        path: '/events',
        query: '?',
        body: { contentType: types.json, digest: digestOf(signedBody) },
        key: editorKey,
      })
      // The signed digest, another body: caught against the bytes received (RFC 9530).
      const sameDigest = await a.http('POST', '/events', {
        headers: { 'content-type': types.json, 'content-digest': digestOf(signedBody), ...fields },
        body: sentBody,
      })
      assertRefused(sameDigest, true)
      // Even when the body that arrives is not JSON at all: the digest is checked before parsing.
      const notJson = await a.http('POST', '/events', {
        headers: { 'content-type': types.json, 'content-digest': digestOf(signedBody), ...fields },
        body: '{"title": ',
      })
      assertRefused(notJson, true)
      // The digest of the new body: the signature no longer matches.
      const newDigest = await a.http('POST', '/events', {
        headers: { 'content-type': types.json, 'content-digest': digestOf(sentBody), ...fields },
        body: sentBody,
      })
      assertRefused(newDigest, true)
      assert.equal(await total(), before)
    })

    it('refuses a signature that leaves out a covered component, orders them otherwise, or lacks a field it covers', async () => {
      const body = eventBody()
      const before = await total()
      for (const components of [
        '("@method" "@authority" "@path" "@query")',
        '("@method" "@authority" "@path" "@query" "content-type")',
        '("@method" "@authority" "@path" "@query" "content-digest" "content-type")',
        '("@authority" "@method" "@path" "@query" "content-type" "content-digest")',
        '("@method" "@authority" "@path" "@query" "content-type" "content-digest" "content-length")',
      ]) {
        assertRefused(await signedPost(body, { components }), true)
      }
      // The Content-Digest field itself missing.
      const fields = handSign({
        method: 'POST',
        authority: a.authority,
        path: '/events',
        query: '?',
        body: { contentType: types.json, digest: digestOf(body) },
        key: editorKey,
      })
      assertRefused(
        await a.http('POST', '/events', { headers: { 'content-type': types.json, ...fields }, body }),
        true,
      )
      assert.equal(await total(), before)
    })

    it('refuses `created` more than 300 s old or more than 60 s ahead, and accepts it within', async () => {
      const before = await total()
      assertRefused(await signedPost(eventBody(), { created: now() - 301 - 5 }), true)
      assertRefused(await signedPost(eventBody(), { created: now() + 61 + 5 }), true)
      assert.equal(await total(), before)
      // Well inside both edges, so that the test does not depend on how fast it runs.
      assert.equal((await signedPost(eventBody(), { created: now() - 290 })).status, 201)
      assert.equal((await signedPost(eventBody(), { created: now() + 50 })).status, 201)
    })

    it('refuses a replayed (keyid, nonce) on the same instance and on another one', async () => {
      const before = await total()
      const body = eventBody()
      const nonce = newNonce()
      const created = now()
      const first = await signedPost(body, { nonce, created })
      assert.equal(first.status, 201, first.text)
      // The very same request again, to the same instance.
      assertRefused(await signedPost(body, { nonce, created }), true)
      // Another request with the same nonce, signed for instance b.
      assertRefused(await signedPost(eventBody(), { nonce }, b), true)
      assert.equal(await total(), before + 1)
      // A nonce is the key's own: another key may use the same one.
      const otherKey = await addKey(a.store)
      assert.equal((await signedPost(eventBody(), { nonce, key: otherKey }, b)).status, 201)
    })

    it('accepts exactly one of concurrent requests carrying one nonce, across instances', async () => {
      const before = await total()
      const nonce = newNonce()
      const created = now()
      // The pair's primary key decides, whichever instance inserts first.
      const results = await Promise.all(
        [a, b, a, b].map((on) => signedPost(eventBody(), { nonce, created }, on)),
      )
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 401, 401, 401])
      assert.equal(await total(), before + 1)
    })

    it('refuses an algorithm other than hmac-sha256, a tag other than ers-v2 or ers-v1, a short nonce and unknown parameters', async () => {
      const before = await total()
      const keyid = `keyid="${editorKey.id}"`
      for (const params of [
        `;created=${now()};${keyid};nonce="${newNonce()}";tag="ers-v1";alg="rsa-pss-sha512"`,
        `;created=${now()};${keyid};nonce="${newNonce()}";tag="ers-v1";alg="hmac-sha512"`,
        `;created=${now()};${keyid};nonce="${newNonce()}";tag="ers-v3";alg="hmac-sha256"`,
        `;created=${now()};${keyid};nonce="${newNonce()}";alg="hmac-sha256"`,
        `;created=${now()};${keyid};nonce="${randomBytes(8).toString('base64url')}";tag="ers-v1"`,
        `;created=${now()};${keyid};tag="ers-v1"`,
        `;${keyid};nonce="${newNonce()}";tag="ers-v1"`,
        `;created=${now()};${keyid};nonce="${newNonce()}";tag="ers-v1";expires=${now() + 60}`,
      ]) {
        assertRefused(await signedPost(eventBody(), { params }), true)
      }
      assert.equal(await total(), before)
    })

    it('refuses malformed fields and a second signature', async () => {
      const body = eventBody()
      const good = handSign({
        method: 'POST',
        authority: a.authority,
        path: '/events',
        query: '?',
        body: { contentType: types.json, digest: digestOf(body) },
        key: editorKey,
      })
      const variants: Record<string, string>[] = [
        { 'signature-input': good['signature-input'] },
        { signature: good.signature },
        { ...good, signature: good.signature.replace('sig1=', 'sig2=') },
        { ...good, signature: 'sig1=not a byte sequence' },
        { ...good, 'signature-input': 'sig1=("@method" ' },
        { ...good, 'signature-input': `${good['signature-input']}, sig2=("@method");created=1` },
      ]
      for (const fields of variants) {
        const res = await a.http('POST', '/events', {
          headers: { 'content-type': types.json, 'content-digest': digestOf(body), ...fields },
          body,
        })
        assertRefused(res, true)
      }
    })

    it('refuses a revoked key at once, on every instance', async () => {
      const key = await addKey(a.store)
      assert.equal((await signedPost(eventBody(), { key })).status, 201)
      assert.equal((await signedPost(eventBody(), { key }, b)).status, 201)
      assert.equal(await b.store.revokeApiKey(key.id, Date.now()), true)
      assertRefused(await signedPost(eventBody(), { key }), true)
      assertRefused(await signedPost(eventBody(), { key }, b), true)
    })

    it('answers 403 to a valid signature of a reader key, which may still read', async () => {
      const readerKey = await addKey(a.store, 'reader')
      const before = await total()
      const res = await signedPost(eventBody(), { key: readerKey })
      assertProblem(res, 403)
      assert.equal(await total(), before)
      const read = handSign({
        method: 'GET',
        authority: a.authority,
        path: '/events',
        query: '?',
        key: readerKey,
      })
      assert.equal((await a.http('GET', '/events', { headers: read })).status, 200)
    })

    it('keeps the Basic scheme working beside signatures, and offers both challenges', async () => {
      const res = await a.http('POST', '/events', {
        headers: { 'content-type': types.json },
        body: eventBody(),
      })
      assertRefused(
        { ...res, json: () => ({ ...res.json(), detail: 'the request signature is not valid' }) },
        true,
      )
      assert.equal(res.json().detail, 'this request needs credentials (HTTP Basic)')
    })

    /** PUT /events/:id with a new title, signed by hand with `over`, sent with `headers`. */
    function signedPut(id: number, headers: Record<string, string>, over: Partial<HandSigned> = {}) {
      const body = JSON.stringify({ title: `Edited ${newNonce()}`, date: '2026-12-04T19:30:00Z' })
      const fields = handSign({
        method: 'PUT',
        authority: a.authority,
        path: `/events/${id}`,
        query: '?',
        body: { contentType: types.json, digest: digestOf(body) },
        key: editorKey,
        ...over,
      })
      return a.http('PUT', `/events/${id}`, {
        headers: { 'content-type': types.json, 'content-digest': digestOf(body), ...headers, ...fields },
        body,
      })
    }

    it('ers-v2: accepts a PUT whose If-Match is covered, and refuses one whose If-Match was stripped, changed or added', async () => {
      const event = (await signedPost(eventBody())).json() as Json
      const id = event.id as number
      const etag = (await a.http('GET', `/events/${id}`)).header('etag') as string
      // Covered and sent as signed: the conditional PUT goes through.
      const ok = await signedPut(id, { 'if-match': etag }, { covered: [['if-match', etag]] })
      assert.equal(ok.status, 200, ok.text)
      const current = ok.header('etag') as string
      const title = ok.json().title
      // An intermediary strips If-Match: the signature covers a field the request lacks.
      assertRefused(
        await signedPut(id, {}, { covered: [['if-match', current]] }),
        true,
        'the request signature covers if-match, which this request does not carry',
      )
      // Or replaces it (a stale precondition turned into a matching one, say): the signature fails.
      assertRefused(
        await signedPut(id, { 'if-match': '*' }, { covered: [['if-match', current]] }),
        true,
        undefined,
        ' "if-match"',
      )
      // Or adds one the client never signed.
      assertRefused(
        await signedPut(id, { 'if-match': current }),
        true,
        'the request signature does not cover if-match, which this request carries',
        ' "if-match"',
      )
      assert.equal((await a.http('GET', `/events/${id}`)).json().title, title, 'nothing changed')
    })

    it("ers-v2: covers If-None-Match and Idempotency-Key, in the profile's order, and refuses a swapped key", async () => {
      const body = eventBody()
      const key = `k-${newNonce()}`
      const signed = (over: Partial<HandSigned>, headers: Record<string, string>) => {
        const fields = handSign({
          method: 'POST',
          authority: a.authority,
          path: '/events',
          query: '?',
          body: { contentType: types.json, digest: digestOf(body) },
          key: editorKey,
          ...over,
        })
        return a.http('POST', '/events', {
          headers: { 'content-type': types.json, 'content-digest': digestOf(body), ...headers, ...fields },
          body,
        })
      }
      const before = await total()
      // Swapped by an intermediary: a retry would no longer be recognised as one.
      assertRefused(
        await signed({ covered: [['idempotency-key', key]] }, { 'idempotency-key': `${key}-2` }),
        true,
        undefined,
        ' "idempotency-key"',
      )
      // Out of the profile's order (idempotency-key before if-none-match).
      assertRefused(
        await signed(
          {
            covered: [
              ['idempotency-key', key],
              ['if-none-match', '*'],
            ],
          },
          { 'idempotency-key': key, 'if-none-match': '*' },
        ),
        true,
        undefined,
        ' "if-none-match" "idempotency-key"',
      )
      assert.equal(await total(), before)
      const created = await signed({ covered: [['idempotency-key', key]] }, { 'idempotency-key': key })
      assert.equal(created.status, 201, created.text)
      // The helper covers the same fields the same way.
      const helper = signRequest({
        method: 'POST',
        url: `http://${a.authority}/events`,
        headers: { 'content-type': types.json, 'idempotency-key': key, 'if-none-match': '"elsewhere"' },
        body,
        keyId: editorKey.id,
        secret: editorKey.secret,
      })
      assert.match(
        helper['signature-input'],
        /^sig1=\("@method" "@authority" "@path" "@query" "content-type" "content-digest" "if-none-match" "idempotency-key"\);.*tag="ers-v2"/,
      )
      const replay = await a.http('POST', '/events', {
        headers: {
          'content-type': types.json,
          'idempotency-key': key,
          'if-none-match': '"elsewhere"',
          ...helper,
        },
        body,
      })
      assert.equal(replay.status, 201, replay.text)
      assert.equal(replay.json().id, created.json().id, 'the same key replays the first answer')
      assert.equal(await total(), before + 1)
    })

    it('ers-v1: accepted without the protected fields, refused with a detail naming the one it leaves uncovered', async () => {
      const event = (await signedPost(eventBody(), { tag: 'ers-v1' })).json() as Json
      const id = event.id as number
      const etag = (await a.http('GET', `/events/${id}`)).header('etag') as string
      assertRefused(
        await signedPut(id, { 'if-match': etag }, { tag: 'ers-v1' }),
        true,
        'a signature of profile ers-v1 does not cover if-match, which this request carries; sign it with the current profile',
        ' "if-match"',
      )
      assertRefused(
        await signedPost(eventBody(), { tag: 'ers-v1' }).then(async () =>
          a.http('DELETE', `/events/${id}`, {
            headers: {
              'if-none-match': '"x"',
              ...handSign({
                method: 'DELETE',
                authority: a.authority,
                path: `/events/${id}`,
                query: '?',
                key: editorKey,
                tag: 'ers-v1',
              }),
            },
          }),
        ),
        false,
        'a signature of profile ers-v1 does not cover if-none-match, which this request carries; sign it with the current profile',
        ' "if-none-match"',
      )
      const unconditional = await signedPut(id, {}, { tag: 'ers-v1' })
      assert.equal(unconditional.status, 200, unconditional.text)
    })

    it('stores the secret only sealed: the database holds no column a thief could sign with', async () => {
      const key = await addKey(a.store)
      const stored = await a.store.findApiKey(key.id)
      assert.ok(stored)
      assert.ok(!stored.sealedSecret.includes(key.secret), 'the secret is not stored as is')
      assert.ok(!stored.sealedSecret.includes(Buffer.from(key.secret).toString('base64')), 'nor as base64')
      // Signing with what the database holds fails.
      assertRefused(await signedPost(eventBody(), { key: { id: key.id, secret: stored.sealedSecret } }), true)
    })
  })

  describe(`[${target.name}] failed signatures and the failed-attempt limit`, () => {
    let close: () => Promise<void>
    let service: Instance
    let key: { id: string; secret: string }
    before(async () => {
      const started = await startInstances(target, { keyEncryptionKey, authFailuresPerMinute: '3' }, 1)
      close = started.close
      service = started.instances[0] as Instance
      key = await addKey(service.store)
    })
    after(() => close?.())

    it('counts failed signatures per address with wrong passwords: 429 with Retry-After past the limit, for signatures and Basic alike', async () => {
      const signedDelete = (secret: string) =>
        service.http('DELETE', '/events/1', {
          headers: {
            ...signRequest({
              method: 'DELETE',
              url: `http://${service.authority}/events/1`,
              keyId: key.id,
              secret,
            }),
          },
        })
      for (let i = 0; i < 2; i++) assertProblem(await signedDelete(newKeySecret()), 401)
      // A valid signature over another body fails when the body arrives: counted too.
      const signedBody = JSON.stringify({ title: 'Signed', date: '2026-12-04T19:30:00Z', location_id: 1 })
      const fields = signRequest({
        method: 'POST',
        url: `http://${service.authority}/events`,
        headers: { 'content-type': types.json },
        body: signedBody,
        keyId: key.id,
        secret: key.secret,
      })
      const swapped = await service.http('POST', '/events', {
        headers: { 'content-type': types.json, ...fields },
        body: signedBody.replace('Signed', 'Swapped'),
      })
      assertProblem(swapped, 401)
      const limited = await signedDelete(newKeySecret())
      assertProblem(limited, 429)
      assert.match(limited.header('retry-after') ?? '', /^[1-9]\d*$/)
      // A correct signature from that address waits too, as a correct password does.
      assertProblem(await signedDelete(key.secret), 429)
      // One counter: a password from the same address is refused without being checked.
      const basic = await service.http('DELETE', '/events/1', {
        headers: { authorization: `Basic ${Buffer.from('someone:wrong').toString('base64')}` },
      })
      assertProblem(basic, 429)
      assert.match(basic.header('retry-after') ?? '', /^[1-9]\d*$/)
    })
  })

  describe(`[${target.name}] signed requests through a trusted proxy`, () => {
    let close: () => Promise<void>
    let service: Instance
    let key: { id: string; secret: string }
    let locationId: number
    before(async () => {
      const started = await startInstances(target, { keyEncryptionKey, trustProxy: 'true' }, 1)
      close = started.close
      service = started.instances[0] as Instance
      locationId = (await service.store.createLocation({ name: 'Hall', address: 'Square' })).id
      key = await addKey(service.store)
    })
    after(() => close?.())

    it('takes @authority from X-Forwarded-Host and @path under X-Forwarded-Prefix, as the client addressed the proxy', async () => {
      const body = JSON.stringify({
        title: 'Via proxy',
        date: '2026-12-04T19:30:00Z',
        location_id: locationId,
      })
      // The client signs the public URL; the default port of https is left out (RFC 9110 §4.2.3).
      const fields = signRequest({
        method: 'POST',
        url: 'https://events.example:443/api/events',
        headers: { 'content-type': types.json },
        body,
        keyId: key.id,
        secret: key.secret,
      })
      const forwarded = {
        'x-forwarded-host': 'events.example',
        'x-forwarded-proto': 'https',
        'x-forwarded-prefix': '/api',
      }
      const res = await service.http('POST', '/events', {
        headers: { 'content-type': types.json, ...forwarded, ...fields },
        body,
      })
      assert.equal(res.status, 201, res.text)
      // Signed for the address the service itself was reached at, it is refused through the proxy.
      const direct = signRequest({
        method: 'POST',
        url: `http://${service.authority}/events`,
        headers: { 'content-type': types.json },
        body,
        keyId: key.id,
        secret: key.secret,
      })
      const refused = await service.http('POST', '/events', {
        headers: { 'content-type': types.json, ...forwarded, ...direct },
        body,
      })
      assertProblem(refused, 401)
    })
  })

  describe(`[${target.name}] signed requests while signing is off (no KEY_ENCRYPTION_KEY)`, () => {
    let close: () => Promise<void>
    let service: Instance
    before(async () => {
      const started = await startInstances(target, {}, 1)
      close = started.close
      service = started.instances[0] as Instance
    })
    after(() => close?.())

    it('answers a signed request 401 saying that signed requests are not enabled, and offers Basic alone', async () => {
      const fields = signRequest({
        method: 'DELETE',
        url: `http://${service.authority}/events/1`,
        keyId: newKeyId(),
        secret: newKeySecret(),
      })
      const res = await service.http('DELETE', '/events/1', { headers: { ...fields } })
      assertProblem(res, 401)
      assert.match(res.json().detail, /signed requests are not enabled on this server/)
      assert.equal(res.header('www-authenticate'), basicChallenge)
      assert.equal(res.header('accept-signature'), undefined)
    })
  })
}

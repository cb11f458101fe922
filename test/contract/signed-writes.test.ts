// A signed PUT of an event confirms its key and spends its nonce in the write's own statement
// (src/http/authenticate.ts confirmedWrite, store SignatureCheck): a key remembered from an earlier
// request is not looked up again, and the nonce is not inserted apart. Here, on every store and
// across two instances of one database: that a replay is still refused and writes nothing, that a
// request that fails (404, 412, 422) still spends its nonce, that a key revoked after it was
// remembered is refused at once, and that of concurrent requests with one nonce exactly one writes.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { signRequest } from '../../packages/client/src/sign-request.ts'
import { newKeyId, newKeySecret, sealSecret } from '../../src/auth/api-key-secrets.ts'
import { keyBytes } from '../../src/config.ts'
import { assertProblem, type Http, types } from '../support/contract.ts'
import { type Instance, startInstances } from '../support/instances.ts'
import { storeTargets } from '../support/stores.ts'

const keyEncryptionKey = randomBytes(32).toString('base64')
const challenges =
  'Basic realm="events", charset="UTF-8", Signature realm="events", tag="ers-v2", alg="hmac-sha256"'

const newNonce = () => randomBytes(16).toString('base64url')

for (const target of storeTargets) {
  describe(`[${target.name}] signed writes that spend their nonce in the write`, () => {
    const instances: Instance[] = []
    let close: () => Promise<void>
    let a: Instance
    let b: Instance
    let lookups = 0

    before(async () => {
      const started = await startInstances(target, { keyEncryptionKey, authFailuresPerMinute: '1000' }, 2)
      close = started.close
      instances.push(...started.instances)
      ;[a, b] = instances as [Instance, Instance]
      // Counts instance a's key lookups (the real lookup still runs).
      const findApiKey = a.store.findApiKey.bind(a.store)
      a.store.findApiKey = (id: string) => {
        lookups++
        return findApiKey(id)
      }
    })
    after(async () => {
      await close?.()
    })

    /** A new editor key, remembered by both instances after one signed PUT to each. */
    async function rememberedKey() {
      const id = newKeyId()
      const secret = newKeySecret()
      const sealedSecret = sealSecret(secret, id, keyBytes(keyEncryptionKey) as Buffer)
      await a.store.createApiKey({ id, name: 'writer', role: 'editor', sealedSecret, createdAt: Date.now() })
      const key = { id, secret }
      const event = await newEvent()
      for (const on of [a, b]) {
        assert.equal((await signedPut(key, event, { on })).status, 200, 'checked in full and remembered')
      }
      return { key, event }
    }

    async function newEvent() {
      const location = await a.store.createLocation({ name: 'Hall', address: `${newNonce()} Street` })
      const event = await a.store.createEvent({
        title: 'Signed',
        date: Date.UTC(2027, 4, 1),
        locationId: location.id,
      })
      return event.id
    }

    interface PutOptions {
      readonly on?: Instance
      readonly nonce?: string
      readonly created?: number
      readonly ifMatch?: string
      readonly body?: Record<string, unknown>
      /** PATCH with a merge patch instead of PUT. */
      readonly patch?: boolean
    }

    /** PUT /events/<id>, signed for instance `on` (a by default); the same options make the same request. */
    function signedPut(key: { id: string; secret: string }, id: number, options: PutOptions = {}) {
      const on = options.on ?? a
      const body = JSON.stringify(
        options.body ?? { title: `Edited ${newNonce()}`, date: '2027-05-01T10:00:00Z' },
      )
      const method = options.patch ? 'PATCH' : 'PUT'
      const headers = {
        'content-type': options.patch ? types.mergePatch : types.json,
        ...(options.ifMatch !== undefined && { 'if-match': options.ifMatch }),
      }
      const fields = signRequest({
        method,
        url: `http://${on.authority}/events/${id}`,
        headers,
        body,
        keyId: key.id,
        secret: key.secret,
        nonce: options.nonce ?? newNonce(),
        ...(options.created !== undefined && { created: options.created }),
      })
      return on.http(method, `/events/${id}`, { headers: { ...headers, ...fields }, body })
    }

    /** The 401 of a signature refused: the same problem and challenges as any refused signature. */
    function assertRefused(res: Awaited<ReturnType<Http>>) {
      assertProblem(res, 401)
      assert.equal(res.json().detail, 'the request signature is not valid')
      assert.equal(res.header('www-authenticate'), challenges)
    }

    /** The event's version as stored, read past HTTP. */
    const versionOf = async (id: number) => (await a.store.getEvent(id))?.version

    it('writes with a remembered key without looking it up', async () => {
      const { key, event } = await rememberedKey()
      const before = lookups
      const res = await signedPut(key, event)
      assert.equal(res.status, 200, res.text)
      assert.equal(res.header('etag'), '"v4"')
      assert.equal(lookups, before, 'no lookup of the key')
    })

    it('refuses a replayed signed PUT (401) on the same instance and another one, writing nothing', async () => {
      const { key, event } = await rememberedKey()
      const nonce = newNonce()
      const created = Math.floor(Date.now() / 1000)
      assert.equal((await signedPut(key, event, { nonce, created })).status, 200)
      assert.equal(await versionOf(event), 4)
      assertRefused(await signedPut(key, event, { nonce, created }))
      assertRefused(await signedPut(key, event, { nonce, on: b }))
      assert.equal(await versionOf(event), 4, 'nothing written by the replays')
    })

    it('spends the nonce of a signed write that fails (404, 412, 422), before or in the write: its replay is 401, not the same failure', async () => {
      const { key, event } = await rememberedKey()
      const cases: [PutOptions, number, number][] = [
        [{}, 99_999_999, 404],
        [{ ifMatch: '"v1"' }, event, 412],
        // Refused before the write: PUT takes no location.
        [{ body: { title: 'Moved', date: '2027-05-01T10:00:00Z', location_id: 1 } }, event, 422],
        // Refused by the write: an unknown location, checked in the write's transaction on every store.
        [{ patch: true, body: { location_id: 99_999_999 } }, event, 422],
      ]
      for (const [options, id, status] of cases) {
        const same = { ...options, nonce: newNonce(), created: Math.floor(Date.now() / 1000) }
        assertProblem(await signedPut(key, id, same), status)
        assertRefused(await signedPut(key, id, same))
        assertRefused(await signedPut(key, id, { ...same, on: b }))
      }
      assert.equal(await versionOf(event), 3, 'nothing written')
    })

    it('refuses a key revoked after it was remembered at once, on every instance, writing nothing', async () => {
      const { key, event } = await rememberedKey()
      assert.equal(await b.store.revokeApiKey(key.id, Date.now()), true)
      assertRefused(await signedPut(key, event))
      assertRefused(await signedPut(key, event, { on: b }))
      assert.equal(await versionOf(event), 3)
    })

    it('writes exactly one of concurrent signed PUTs carrying one nonce, across instances', async () => {
      const { key, event } = await rememberedKey()
      for (let round = 0; round < 3; round++) {
        const nonce = newNonce()
        const results = await Promise.all([a, b, a, b].map((on) => signedPut(key, event, { nonce, on })))
        assert.deepEqual(
          results.map((r) => r.status).sort(),
          [200, 401, 401, 401],
          results.map((r) => r.text).join('\n'),
        )
        for (const refused of results.filter((r) => r.status === 401)) assertRefused(refused)
        assert.equal(await versionOf(event), 4 + round)
      }
    })
  })
}

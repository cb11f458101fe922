// The typed client (src/client) against the real service on each store: it starts from the base
// URL, follows links, keeps ETags for If-Match, pages by the Link field, and turns every failure
// into a typed error.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { newKeyId, newKeySecret, sealSecret } from '../../src/auth/api-key-secrets.ts'
import {
  EventServiceClient,
  isPreconditionFailed,
  NetworkError,
  ProblemError,
  UnexpectedResponseError,
} from '../../src/client/index.ts'
import { keyBytes } from '../../src/config.ts'
import type { Role } from '../../src/domain/types.ts'
import { editor, reader, startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const keyEncryptionKey = randomBytes(32).toString('base64')

/** Resolves with the error `work` rejects with, failing when it does not. */
async function failure(work: Promise<unknown>): Promise<unknown> {
  try {
    await work
  } catch (error) {
    return error
  }
  assert.fail('expected the call to fail')
}

for (const target of storeTargets) {
  describe(`[${target.name}] the client`, () => {
    let service: TestService
    let locationId: number
    let otherLocationId: number
    let anonymous: EventServiceClient
    let client: EventServiceClient

    before(async () => {
      service = await startService(target, { keyEncryptionKey })
      locationId = (await service.store.createLocation({ name: 'Hall', address: '1 Main St' })).id
      otherLocationId = (await service.store.createLocation({ name: 'Park', address: '2 Side St' })).id
      anonymous = new EventServiceClient({ baseUrl: service.baseUrl })
      client = new EventServiceClient({ baseUrl: `${service.baseUrl}/`, credentials: editor })
    })
    after(() => service.close())

    const newEvent = (title: string, day = 10) =>
      client.events.create({ title, date: `2027-03-${day}T18:00:00Z`, location_id: locationId })

    async function addKey(role: Role) {
      const id = newKeyId()
      const secret = newKeySecret()
      const sealedSecret = sealSecret(secret, id, keyBytes(keyEncryptionKey) as Buffer)
      await service.store.createApiKey({
        id,
        name: `client ${role}`,
        role,
        sealedSecret,
        createdAt: Date.now(),
      })
      return { keyId: id, secret }
    }

    it('starts from the entry point and reads events and their location by links', async () => {
      const created = await newEvent('Read by the client')
      assert.equal(created.title, 'Read by the client')
      const event = await anonymous.events.get(created.id)
      assert.deepEqual(event, created)
      assert.match(anonymous.events.etagOf(event) ?? '', /^"v\d+"$/)
      const location = await anonymous.locations.of(event)
      assert.equal(location.id, locationId)
      assert.equal(location.name, 'Hall')
      assert.deepEqual(await anonymous.locations.get(locationId), location)
      const entry = await anonymous.entryPoint()
      assert.ok(entry.links.some((l) => l.rel.split(' ').includes('/rel/events')))
    })

    it('lists a page with its Link relations and follows them', async () => {
      for (let day = 11; day <= 15; day++) await newEvent(`Paged ${day}`, day)
      const first = await anonymous.events.list({ perPage: 2, q: 'paged' })
      assert.equal(first.total, 5)
      assert.deepEqual(Object.keys(first.representation), ['total', 'events'])
      assert.deepEqual(
        first.items.map((e) => e.title),
        ['Paged 11', 'Paged 12'],
      )
      assert.ok(first.etag)
      assert.equal(first.links.prev, undefined)
      const second = await anonymous.events.page(first, 'next')
      assert.deepEqual(
        second?.items.map((e) => e.title),
        ['Paged 13', 'Paged 14'],
      )
      const last = await anonymous.events.page(first, 'last')
      assert.deepEqual(
        last?.items.map((e) => e.title),
        ['Paged 15'],
      )
      assert.equal(last && (await anonymous.events.page(last, 'next')), undefined)
    })

    it('iterates over every event a filter finds, across pages, in order', async () => {
      const titles = []
      for (let day = 16; day <= 22; day++) titles.push((await newEvent(`Every ${day}`, day)).title)
      await client.events.create({
        title: 'Every elsewhere',
        date: '2027-03-16T18:00:00Z',
        location_id: otherLocationId,
      })
      const seen = []
      for await (const event of anonymous.events.all({ perPage: 3, q: 'every', locationId }))
        seen.push(event.title)
      assert.deepEqual(seen, titles)
      const from = []
      for await (const event of anonymous.events.all({
        perPage: 2,
        q: 'every',
        from: '2027-03-20T00:00:00Z',
        to: '2027-03-22T00:00:00Z',
      })) {
        from.push(event.title)
      }
      assert.deepEqual(from, ['Every 20', 'Every 21'])
    })

    it('updates with If-Match from the read; a stale ETag is a 412 that a re-read resolves', async () => {
      const created = await newEvent('Before')
      const mine = await client.events.get(created.id)
      const theirs = await client.events.get(created.id)
      const patched = await client.events.patch(theirs, { title: 'Theirs' })
      assert.equal(patched.title, 'Theirs')
      assert.notEqual(client.events.etagOf(patched), client.events.etagOf(mine))

      const stale = await failure(client.events.patch(mine, { title: 'Mine' }))
      assert.ok(stale instanceof ProblemError)
      assert.equal(stale.status, 412)
      assert.ok(stale.preconditionFailed && isPreconditionFailed(stale))
      assert.ok(isPreconditionFailed(await failure(client.events.replace(mine, { title: 'Mine' }))))
      assert.ok(isPreconditionFailed(await failure(client.events.delete(mine))))
      assert.equal((await anonymous.events.get(created.id)).title, 'Theirs', 'nothing was written')

      const fresh = await client.events.get(created.id)
      const replaced = await client.events.replace(fresh, {
        title: 'Mine',
        date: '2027-04-01T10:00:00+02:00',
      })
      assert.equal(replaced.title, 'Mine')
      assert.equal(replaced.date, '2027-04-01T08:00:00Z')
      const moved = await client.events.patch(replaced, { location_id: otherLocationId })
      assert.equal((await client.locations.of(moved)).id, otherLocationId)
      await client.events.delete(moved)
      const gone = await failure(anonymous.events.get(created.id))
      assert.ok(gone instanceof ProblemError)
      assert.equal(gone.status, 404)
    })

    it('sends an Idempotency-Key, so a create sent again creates nothing', async () => {
      const body = { title: 'Once', date: '2027-07-01T10:00:00Z', location_id: locationId }
      const key = `client-${randomBytes(8).toString('hex')}`
      const first = await client.events.create(body, { idempotencyKey: key })
      const again = await client.events.create(body, { idempotencyKey: key })
      assert.deepEqual(again, first)
      assert.equal((await anonymous.events.list({ q: 'once' })).total, 1)
      const other = await failure(client.events.create({ ...body, title: 'Twice' }, { idempotencyKey: key }))
      assert.ok(other instanceof ProblemError && other.status === 422, String(other))
    })

    it('refuses to write without a known ETag rather than write unconditionally', async () => {
      const created = await newEvent('Listed')
      const listed = (await anonymous.events.list({ q: 'listed' })).items[0]
      assert.ok(listed)
      await assert.rejects(client.events.patch(listed, { title: 'x' }), /no ETag is known/)
      const patched = await client.events.patch(listed, { title: 'Forced' }, { etag: '*' })
      assert.equal(patched.title, 'Forced')
      assert.equal(patched.id, created.id)
    })

    it('gives validation problems with their errors, and 404 for an unknown id', async () => {
      const invalid = await failure(
        client.events.create({ title: ' ', date: '2027-02-30T10:00:00Z', location_id: locationId }),
      )
      assert.ok(invalid instanceof ProblemError)
      assert.equal(invalid.status, 422)
      assert.ok(invalid.errors.some((e) => e.pointer === '/title'))
      assert.ok(invalid.errors.some((e) => e.pointer === '/date'))
      assert.match(invalid.message, /^422 /)
      const missing = await failure(anonymous.events.get(987654))
      assert.ok(missing instanceof ProblemError && missing.status === 404, String(missing))
      assert.ok(missing.detail.length > 0)
      const badFilter = await failure(anonymous.events.list({ from: 'yesterday' }))
      assert.ok(badFilter instanceof ProblemError && badFilter.status === 400, String(badFilter))
    })

    it('authenticates with Basic: 401 for a wrong password, 403 for a reader', async () => {
      const body = { title: 'Refused', date: '2027-05-01T10:00:00Z', location_id: locationId }
      const wrong = new EventServiceClient({
        baseUrl: service.baseUrl,
        credentials: { user: editor.user, password: 'not the password' },
      })
      const unauthorised = await failure(wrong.events.create(body))
      assert.ok(unauthorised instanceof ProblemError && unauthorised.status === 401, String(unauthorised))
      const noCredentials = await failure(anonymous.events.create(body))
      assert.ok(noCredentials instanceof ProblemError && noCredentials.status === 401)
      const readerClient = new EventServiceClient({ baseUrl: service.baseUrl, credentials: reader })
      const forbidden = await failure(readerClient.events.create(body))
      assert.ok(forbidden instanceof ProblemError && forbidden.status === 403, String(forbidden))
      assert.equal((await anonymous.events.list({ q: 'refused' })).total, 0)
      // Reads carry no credentials, so wrong ones cost a reader nothing.
      assert.equal((await wrong.events.list({ q: 'refused' })).total, 0)
    })

    it('signs requests with an API key: writes pass for an editor key, a reader key gets 403', async () => {
      const signed = new EventServiceClient({ baseUrl: service.baseUrl, credentials: await addKey('editor') })
      const created = await signed.events.create({
        title: 'Signed',
        date: '2027-06-01T10:00:00Z',
        location_id: locationId,
      })
      const patched = await signed.events.patch(created, { title: 'Signed twice' })
      assert.equal(patched.title, 'Signed twice')
      await signed.events.delete(patched)
      const readerKey = new EventServiceClient({
        baseUrl: service.baseUrl,
        credentials: await addKey('reader'),
      })
      const forbidden = await failure(readerKey.locations.create({ name: 'No', address: 'Nowhere' }))
      assert.ok(forbidden instanceof ProblemError && forbidden.status === 403, String(forbidden))
      const badSecret = new EventServiceClient({
        baseUrl: service.baseUrl,
        credentials: { keyId: (await addKey('editor')).keyId, secret: 'wrong' },
      })
      const refused = await failure(badSecret.locations.create({ name: 'No', address: 'Nowhere' }))
      assert.ok(refused instanceof ProblemError && refused.status === 401, String(refused))
    })

    it('writes locations and pages through them', async () => {
      const made = await client.locations.create({ name: 'Annex', address: '3 Back St' })
      const renamed = await client.locations.patch(made, { name: 'New annex' })
      assert.equal(renamed.name, 'New annex')
      const all = []
      for await (const location of anonymous.locations.all({ perPage: 1 })) all.push(location.id)
      assert.deepEqual(all, [locationId, otherLocationId, made.id])
      const page = await anonymous.locations.list({ perPage: 2 })
      assert.equal(page.total, 3)
      assert.ok(page.links.next)
      await client.locations.delete(renamed)
    })
  })
}

describe('the client when there is no service', () => {
  it('turns a refused connection into a NetworkError', async () => {
    // A port that was just free: nothing listens there any more.
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : 0
    await new Promise((resolve) => server.close(resolve))
    const error = await failure(new EventServiceClient({ baseUrl: `http://127.0.0.1:${port}` }).events.get(1))
    assert.ok(error instanceof NetworkError, String(error))
    assert.match(error.message, /ECONNREFUSED/)
  })

  it('turns an answer that is neither the representation nor a problem into an UnexpectedResponseError', async () => {
    // What a misconfigured proxy in front of the service would answer.
    const server = createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : 0
    try {
      const error = await failure(
        new EventServiceClient({ baseUrl: `http://127.0.0.1:${port}` }).events.get(1),
      )
      assert.ok(error instanceof UnexpectedResponseError, String(error))
      assert.equal(error.status, 502)
      assert.equal(error.contentType, 'text/html')
      assert.match(error.message, /Bad Gateway/)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

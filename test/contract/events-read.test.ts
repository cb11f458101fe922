// Reading events (CONTRACT.md §2, §3; seed §2 and §4 rules 1–2): the representation, its links and
// the hypermedia a client follows.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { assertEvent, contractService, expectedEventLinks, jsonHeaders, types } from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] reading events`, () => {
    const ctx = contractService(target)

    it('GET /events/<id> answers 200 with the event type and fields links, id, title, date in that order', async () => {
      const created = await ctx.createEvent({
        title: 'Release party',
        date: '2026-12-04T19:30:00Z',
      })
      const res = await ctx.http('GET', `/events/${created.id}`, {
        headers: { accept: types.event },
      })
      assert.equal(res.status, 200)
      assert.equal(res.header('content-type'), types.event)
      const body = res.json()
      assert.deepEqual(Object.keys(body), ['links', 'id', 'title', 'date'])
      assertEvent(body, {
        id: created.id,
        title: 'Release party',
        date: '2026-12-04T19:30:00Z',
        locationId: ctx.locationId,
      })
      // The serialised text keeps that order too (a client may read it as a stream).
      assert.match(
        res.text,
        /^\{"links":\[.*\],"id":\d+,"title":"Release party","date":"2026-12-04T19:30:00Z"\}$/,
      )
    })

    it('carries exactly two links with the exact rel and type strings', async () => {
      const created = await ctx.createEvent()
      const res = await ctx.http('GET', `/events/${created.id}`)
      const { links } = res.json()
      assert.equal(links.length, 2)
      const self = links.find((l: { rel: string }) => l.rel === '/rel/event self edit')
      const location = links.find((l: { rel: string }) => l.rel === '/rel/location')
      assert.deepEqual(self, {
        uri: `/events/${created.id}`,
        rel: '/rel/event self edit',
        type: 'application/vnd.service.event',
      })
      assert.deepEqual(location, {
        uri: `/locations/${ctx.locationId}`,
        rel: '/rel/location',
        type: 'application/vnd.service.location',
      })
    })

    it('the id in the self link path equals the id field, and following the link returns the same event', async () => {
      const created = await ctx.createEvent()
      const self = created.links.find((l: { rel: string }) => l.rel.split(' ').includes('self'))
      const id = Number(/^\/events\/(\d+)$/.exec(self.uri)?.[1])
      assert.equal(id, created.id)
      const res = await ctx.http('GET', self.uri, { headers: { accept: types.event } })
      assert.equal(res.status, 200)
      assert.equal(res.json().id, id)
      assert.deepEqual(res.json(), created)
    })

    it('link uris are paths whatever Host or forwarding headers the request arrived with', async () => {
      const created = await ctx.createEvent()
      const res = await ctx.http('GET', `/events/${created.id}`, {
        headers: {
          host: 'api.example.com:8443',
          'x-forwarded-host': 'proxy.example.org',
          'x-forwarded-proto': 'https',
          'x-forwarded-prefix': '/api/v1',
          forwarded: 'host=proxy.example.org;proto=https',
        },
      })
      assert.equal(res.status, 200)
      assert.deepEqual(res.json().links, expectedEventLinks(created.id, ctx.locationId))
      assert.doesNotMatch(res.text, /example|https?:|\/api\//)
    })

    it('the location link leads to the location of the event', async () => {
      const otherLocation = await ctx.newLocation('Old Library', '4 Chapel Lane')
      const created = await ctx.createEvent({ location_id: otherLocation })
      const link = created.links.find((l: { rel: string }) => l.rel === '/rel/location')
      const res = await ctx.http('GET', link.uri, { headers: { accept: types.location } })
      assert.equal(res.status, 200)
      assert.equal(res.header('content-type'), types.location)
      assert.equal(res.json().id, otherLocation)
      assert.equal(res.json().name, 'Old Library')
    })

    it('a listed event has the same representation as the event read on its own', async () => {
      const created = await ctx.createEvent({
        title: 'Listed',
        date: '2026-06-01T10:00:00Z',
      })
      const res = await ctx.http('GET', '/events', { headers: jsonHeaders(), body: { per_page: 100 } })
      assert.equal(res.status, 200)
      assert.equal(res.header('content-type'), types.events)
      const body = res.json()
      assert.deepEqual(Object.keys(body), ['total', 'events'])
      const listed = body.events.find((e: { id: number }) => e.id === created.id)
      assert.ok(listed, 'the new event is in the collection')
      for (const event of body.events) assertEvent(event)
      const single = await ctx.http('GET', `/events/${created.id}`)
      assert.deepEqual(listed, single.json())
    })

    it('HEAD /events/<id> answers the headers of GET without a body', async () => {
      const created = await ctx.createEvent({ title: 'Hé — ünïcode' })
      const get = await ctx.http('GET', `/events/${created.id}`)
      const head = await ctx.http('HEAD', `/events/${created.id}`)
      assert.equal(head.status, 200)
      assert.equal(head.text, '')
      assert.equal(head.header('content-type'), types.event)
      assert.equal(head.header('content-length'), get.header('content-length'))
      assert.equal(head.header('content-length'), String(Buffer.byteLength(get.text)))
      assert.equal(head.header('etag'), get.header('etag'))
    })

    it('HEAD of a missing event is 404 without a body', async () => {
      const res = await ctx.http('HEAD', '/events/987654')
      assert.equal(res.status, 404)
      assert.equal(res.text, '')
      assert.equal(res.header('content-type'), types.problem)
    })

    it('GET, HEAD and QUERY need no credentials', async () => {
      const created = await ctx.createEvent()
      for (const [method, path] of [
        ['GET', `/events/${created.id}`],
        ['HEAD', `/events/${created.id}`],
        ['GET', '/events'],
        ['HEAD', '/events'],
        ['GET', `/locations/${ctx.locationId}`],
        ['HEAD', `/locations/${ctx.locationId}`],
        ['GET', '/locations'],
        ['HEAD', '/locations'],
        ['GET', '/'],
        ['HEAD', '/'],
      ] as const) {
        const res = await ctx.http(method, path)
        assert.equal(res.status, 200, `${method} ${path}: ${res.text}`)
        assert.equal(res.header('www-authenticate'), undefined, `${method} ${path} asks for no credentials`)
      }
      const query = await ctx.http('QUERY', '/events', { headers: jsonHeaders(), body: { page: 1 } })
      assert.equal(query.status, 200, query.text)
    })
  })
}

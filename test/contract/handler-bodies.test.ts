// Every operation's handler resolves to its answer's body, never to the reply (http/resource.ts,
// Body): a promise resolved with the reply takes it as a thenable, and Fastify's `reply.then`
// then waits for the response to finish with end-of-stream listeners on it, which on the most
// frequent answers cost CPU and kept each request's objects alive past V8's young generation.
// Here every reply's `then` is watched, across the answers clients get most and the rarer ones
// alike, and a route added the old way (`return reply.send(…)`) shows that the watch sees it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assets } from '../../src/http/html/assets.ts'
import { jsonHeaders, types } from '../support/contract.ts'
import { oneEvent, startService, type TestService } from '../support/service.ts'
import { openFeed } from '../support/sse.ts'
import { storeTargets } from '../support/stores.ts'

const control = '/control-returns-reply'

for (const target of storeTargets) {
  describe(`[${target.name}] handlers answer with their bodies, not the reply`, () => {
    let service: TestService
    /** The requests whose reply was awaited as a thenable. */
    const awaited: string[] = []
    let eventId = 0
    let etag = ''
    before(async () => {
      service = await startService(
        target,
        {},
        {
          beforeListen: (app) => {
            app.addHook('onRequest', (request, reply, done) => {
              const then = reply.then
              // biome-ignore lint/suspicious/noThenProperty: it watches the thenable Fastify made the reply
              reply.then = function (this: typeof reply, ...args: Parameters<typeof then>) {
                awaited.push(`${request.method} ${request.url}`)
                return then.apply(this, args)
              }
              done()
            })
            app.get(control, async (_request, reply) => reply.type('text/plain').send('old way'))
          },
        },
      )
      const event = await oneEvent(service.store, 'Answered')
      eventId = event.id
      etag = event.etag
    })
    after(() => service.close())

    it('sees a handler that resolves to the reply', async () => {
      awaited.length = 0
      const res = await service.request('GET', control)
      assert.equal(res.status, 200)
      assert.deepEqual(awaited, [`GET ${control}`])
    })

    it('finds no reply awaited on the answers of the route table', async () => {
      awaited.length = 0
      const editor = jsonHeaders(service.editorAuth)
      const cases: [string, string, Record<string, string>, unknown?][] = [
        ['GET', `/events/${eventId}`, { accept: types.event }],
        ['GET', `/events/${eventId}`, { accept: types.event, 'if-none-match': etag }],
        ['HEAD', `/events/${eventId}`, { accept: types.event }],
        ['GET', `/events/${eventId}`, { accept: 'text/html' }],
        ['GET', '/events?per_page=100', { accept: types.events, 'accept-encoding': 'gzip' }],
        ['GET', '/events', { accept: 'text/html' }],
        ['GET', '/locations/1', { accept: types.location }],
        ['GET', '/locations', { accept: types.locations }],
        ['GET', '/', { accept: types.api }],
        ['GET', '/', { accept: 'text/html' }],
        ['GET', '/events/987654321', { accept: types.event }],
        ['POST', '/events', editor, { title: 'New', date: '2027-01-01T10:00:00Z', location_id: 1 }],
        ['PUT', `/events/${eventId}`, editor, { title: 'Put', date: '2027-01-01T10:00:00Z' }],
        [
          'PATCH',
          `/events/${eventId}`,
          jsonHeaders(service.editorAuth, types.mergePatch),
          { title: 'Patched' },
        ],
        ['PUT', '/locations/1', editor, { name: 'Hall', address: 'Street 2' }],
        ['DELETE', `/events/${eventId}`, { authorization: service.editorAuth }],
        ['GET', '/openapi.json', {}],
        ['GET', assets.icon.path, {}],
        ['OPTIONS', '/events', {}],
        ['OPTIONS', '/events', { origin: 'https://example.com', 'access-control-request-method': 'PUT' }],
        ['GET', '/health/live', {}],
        ['GET', '/health/ready', {}],
        ['GET', '/metrics', {}],
      ]
      for (const [method, path, headers, body] of cases) {
        const res = await service.request(method, path, { headers, ...(body !== undefined && { body }) })
        assert.ok(res.status < 500, `${method} ${path} → ${res.status}`)
      }
      const feed = await openFeed(service.baseUrl)
      feed.close()
      assert.deepEqual(awaited, [])
    })
  })
}

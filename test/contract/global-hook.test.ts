// One request path: a global hook added to the app (here an onSend hook that sets a made-up field,
// as tracing or load shedding would be added) reaches every answer, the most frequent ones first
// (GET by id with nothing but Accept, its 304, HEAD), so no second path can skip it. Only answers
// to what never became an HTTP request Fastify could route (unparseable bytes, a missing Host,
// too-large headers, a deadline: http/client-errors.ts, connection-guard.ts) are written past it,
// and the router's own FST_ERR_BAD_URL (malformed percent-encoding in a path parameter: app.ts's
// frameworkErrors), which Fastify answers before any hook.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { jsonHeaders, types } from '../support/contract.ts'
import { oneEvent, startService, type TestService } from '../support/service.ts'
import { openFeed } from '../support/sse.ts'
import { storeTargets } from '../support/stores.ts'

const madeUp = 'x-made-up-hook'

/** One request written as is on a new connection (nothing but the fields given); the head of the answer. */
function exchange(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}Connection: close\r\n\r\n`))
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8').split('\r\n\r\n')[0] ?? ''))
  })
}

for (const target of storeTargets) {
  describe(`[${target.name}] a global hook reaches every answer`, () => {
    let service: TestService
    let hooked = 0
    let eventId = 0
    let etag = ''
    before(async () => {
      service = await startService(
        target,
        // A rate limit on, as in production: its refusals are answers too.
        { rateLimitReads: '100000' },
        {
          beforeListen: (app) =>
            app.addHook('onSend', (_request, reply, payload, done) => {
              hooked++
              reply.header(madeUp, 'yes')
              done(null, payload)
            }),
        },
      )
      const event = await oneEvent(service.store, 'Hooked')
      eventId = event.id
      etag = event.etag
    })
    after(() => service.close())

    it("reaches GET by id with nothing but Accept (wrk's request), again and again", async () => {
      for (let i = 0; i < 20; i++) {
        const head = await exchange(
          service.port,
          `GET /events/${eventId} HTTP/1.1\r\nHost: localhost\r\nAccept: ${types.event}\r\n`,
        )
        assert.match(head, /^HTTP\/1\.1 200 /)
        assert.match(head, new RegExp(`^${madeUp}: yes$`, 'im'))
      }
    })

    it('reaches a browser-like GET, a revalidation (304), HEAD and a location', async () => {
      for (const head of [
        `GET /events/${eventId} HTTP/1.1\r\nHost: localhost\r\nAccept: ${types.event}\r\nAccept-Encoding: gzip, br\r\nUser-Agent: x\r\n`,
        `GET /events/${eventId} HTTP/1.1\r\nHost: localhost\r\nAccept: ${types.event}\r\nIf-None-Match: ${etag}\r\n`,
        `HEAD /events/${eventId} HTTP/1.1\r\nHost: localhost\r\nAccept: ${types.event}\r\n`,
        `GET /locations/1 HTTP/1.1\r\nHost: localhost\r\nAccept: ${types.location}\r\n`,
      ]) {
        const answer = await exchange(service.port, head)
        assert.match(answer, /^HTTP\/1\.1 (200|304) /, head)
        assert.match(answer, new RegExp(`^${madeUp}: yes$`, 'im'), head)
      }
    })

    it('reaches every other kind of answer: pages, writes, problems, the feed, HTML, documents', async () => {
      const editor = jsonHeaders(service.editorAuth)
      const cases: [string, string, Record<string, string>, unknown?][] = [
        ['GET', '/', { accept: types.api }],
        ['GET', '/events?per_page=100', { accept: types.events, 'accept-encoding': 'gzip' }],
        ['GET', `/events/${eventId}`, { accept: 'text/html' }],
        ['GET', '/events/987654321', { accept: types.event }],
        ['GET', `/events/${eventId}`, { accept: 'image/png' }],
        ['GET', `/events/${eventId}`, { accept: types.event, authorization: 'Basic bm86bm8=' }],
        ['GET', '/nothing-here', {}],
        ['PATCH', '/', {}],
        ['OPTIONS', '/events', {}],
        ['POST', '/events', editor, { title: 'New', date: '2027-01-01T10:00:00Z', location_id: 1 }],
        [
          'PUT',
          `/events/${eventId}`,
          { ...editor, 'if-match': '"v999"' },
          { title: 'x', date: '2027-01-01T10:00:00Z' },
        ],
        ['DELETE', '/events/987654321', { authorization: service.editorAuth }],
        ['GET', '/openapi.json', {}],
        ['GET', '/health', {}],
        ['GET', '/metrics', {}],
      ]
      for (const [method, path, headers, body] of cases) {
        const res = await service.request(method, path, { headers, ...(body !== undefined && { body }) })
        assert.equal(res.header(madeUp), 'yes', `${method} ${path} → ${res.status}`)
      }
      const feed = await openFeed(service.baseUrl)
      try {
        assert.equal(feed.headers[madeUp], 'yes')
      } finally {
        feed.close()
      }
    })

    it('has run once per answer it marked', () => {
      assert.ok(hooked > 0)
    })
  })
}

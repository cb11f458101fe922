// What every response carries, whatever its status (seed §4; CONTRACT.md §1, §3, §4, §5): Date,
// Vary naming Accept, X-Request-Id (the client's when sane), an exact Content-Length and a
// Content-Type with every body, and never Set-Cookie.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  assertCommonHeaders,
  assertEveryResponse,
  contractService,
  type Json,
  jsonHeaders,
  types,
} from '../support/contract.ts'
import { declaredResponses } from '../support/openapi-check.ts'
import type { RequestOptions, Response } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] headers of every response`, () => {
    const ctx = contractService(target)

    /** One request per status the service gives, each made against fresh data. */
    async function oneOfEachStatus(extra: Record<string, string> = {}) {
      const event: Json = await ctx.createEvent()
      const doomed: Json = await ctx.createEvent()
      const { etag } = await ctx.readEvent(event.id)
      const editor = (contentType: string = types.json) => ({
        ...jsonHeaders(ctx.service.editorAuth, contentType),
        ...extra,
      })
      const cases: [number, string, string, RequestOptions][] = [
        [200, 'GET', '/events', { headers: extra }],
        [200, 'HEAD', `/events/${event.id}`, { headers: extra }],
        [200, 'GET', `/locations/${ctx.locationId}`, { headers: extra }],
        [200, 'GET', '/rel/event', { headers: { ...extra, accept: 'text/html' } }],
        [201, 'POST', '/events', { headers: editor(), body: ctx.newEventBody() }],
        [204, 'OPTIONS', '/events', { headers: extra }],
        [
          204,
          'DELETE',
          `/events/${doomed.id}`,
          { headers: { authorization: ctx.service.editorAuth, ...extra } },
        ],
        [304, 'GET', `/events/${event.id}`, { headers: { ...extra, 'if-none-match': etag as string } }],
        [400, 'POST', '/events', { headers: editor(), body: '{"title":' }],
        [400, 'GET', '/events?per_page=101', { headers: extra }],
        [401, 'POST', '/events', { headers: { ...jsonHeaders(), ...extra }, body: ctx.newEventBody() }],
        [
          403,
          'POST',
          '/events',
          { headers: { ...jsonHeaders(ctx.service.readerAuth), ...extra }, body: ctx.newEventBody() },
        ],
        [404, 'GET', '/events/987654', { headers: extra }],
        [404, 'GET', '/no/such/path', { headers: extra }],
        [405, 'DELETE', '/events', { headers: { authorization: ctx.service.editorAuth, ...extra } }],
        [406, 'GET', `/events/${event.id}`, { headers: { ...extra, accept: 'application/xml' } }],
        [
          412,
          'PATCH',
          `/events/${event.id}`,
          { headers: { ...editor(types.mergePatch), 'if-match': '"stale"' }, body: {} },
        ],
        [413, 'POST', '/events', { headers: editor(), body: `{}${' '.repeat(17 * 1024)}` }],
        [415, 'POST', '/events', { headers: editor('text/plain'), body: 'hello' }],
        [422, 'POST', '/events', { headers: editor(), body: { ...ctx.newEventBody(), title: '' } }],
      ]
      const responses: [number, string, string, Response][] = []
      for (const [status, method, path, options] of cases) {
        responses.push([status, method, path, await ctx.service.request(method, path, options)])
      }
      return responses
    }

    it('Date, Vary: Accept, X-Request-Id, exact Content-Length, problem bodies and no Set-Cookie on every status', async () => {
      for (const [status, method, path, res] of await oneOfEachStatus()) {
        assert.equal(res.status, status, `${method} ${path} → ${res.status} ${res.text}`)
        assertEveryResponse(method, path, res)
        assertCommonHeaders(res, `${method} ${path} → ${res.status}`)
        // Each status as the OpenAPI document declares it for that operation.
        ;(await declaredResponses()).check(method, path, res)
      }
    })

    it('echoes a sane X-Request-Id on every status', async () => {
      const id = 'req-42.abc:x_Y'
      for (const [status, method, path, res] of await oneOfEachStatus({ 'x-request-id': id })) {
        assert.equal(res.status, status, `${method} ${path} → ${res.status} ${res.text}`)
        assert.equal(res.header('x-request-id'), id, `${method} ${path} → ${status} echoes the request id`)
      }
    })

    it('replaces an X-Request-Id that is too long or holds spaces', async () => {
      for (const sent of ['a'.repeat(300), 'has spaces in it', 'line\tbreak']) {
        for (const path of ['/events', '/events/987654']) {
          const res = await ctx.http('GET', path, { headers: { 'x-request-id': sent } })
          const got = res.header('x-request-id') ?? ''
          assert.notEqual(got, sent, `an insane request id (${sent.length} characters) is not echoed`)
          assert.ok(got.length > 0 && got.length <= 128, `the replacement is short: ${got}`)
          assert.match(got, /^[\x21-\x7e]+$/, 'the replacement is plain visible ASCII')
        }
      }
    })

    it('gives each request its own id when the client sends none', async () => {
      const ids = new Set<string | undefined>()
      for (let i = 0; i < 5; i++) ids.add((await ctx.http('GET', '/events')).header('x-request-id'))
      assert.equal(ids.size, 5)
    })

    it('counts Content-Length in bytes, not characters', async () => {
      const title = 'Ünïcödé 😀 — 東京'
      const event = await ctx.createEvent({ title })
      const res = await ctx.http('GET', `/events/${event.id}`)
      assert.equal(res.json().title, title)
      assert.equal(res.header('content-length'), String(Buffer.byteLength(res.text)))
      assert.notEqual(
        Buffer.byteLength(res.text),
        res.text.length,
        'the body really has multi-byte characters',
      )
    })

    it('gives the exact vendor Content-Type without a charset parameter', async () => {
      const event = await ctx.createEvent()
      for (const [path, type] of [
        ['/events', types.events],
        [`/events/${event.id}`, types.event],
        [`/locations/${ctx.locationId}`, types.location],
      ] as const) {
        const res = await ctx.http('GET', path, { headers: { accept: 'application/json' } })
        assert.equal(res.header('content-type'), type)
      }
      const problem = await ctx.http('GET', '/events/987654')
      assert.equal(problem.header('content-type'), types.problem)
    })
  })
}

// Errors and hostile input (CONTRACT.md §5, §6): malformed bodies are 400, invalid fields 422,
// oversized bodies 413 and oversized headers 431, unknown resources 404 — always as problem+json
// without anything internal, never 5xx, and never with a change to the data.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  assertCommonHeaders,
  assertEveryResponse,
  assertProblem,
  contractService,
  type Json,
  jsonHeaders,
  rawExchange,
  types,
} from '../support/contract.ts'
import type { Response } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] errors and bad input`, () => {
    const ctx = contractService(target)

    const fixture = () => ctx.createEvent()
    async function unchanged(expected: Json) {
      assert.deepEqual((await ctx.readEvent(expected.id)).event, expected, 'a refused write changes nothing')
    }
    /** `body` sent raw to each write of an event and to the collection reads; all must be `status`. */
    async function everywhere(body: string | Uint8Array, status: number) {
      const event = await fixture()
      const before = await ctx.totalEvents()
      const writes: [string, string, string][] = [
        ['POST', '/events', types.json],
        ['PUT', `/events/${event.id}`, types.json],
        ['PATCH', `/events/${event.id}`, types.mergePatch],
      ]
      for (const [method, path, contentType] of writes) {
        const res = await ctx.http(method, path, {
          headers: jsonHeaders(ctx.service.editorAuth, contentType),
          body,
        })
        assert.equal(res.status, status, `${method} ${path} → ${res.status} ${res.text}`)
        assertProblem(res, status)
      }
      for (const method of ['GET', 'QUERY']) {
        const res = await ctx.http(method, '/events', { headers: jsonHeaders(), body })
        assert.equal(res.status, status, `${method} /events → ${res.status} ${res.text}`)
        assertProblem(res, status)
      }
      assert.equal(await ctx.totalEvents(), before)
      await unchanged(event)
    }

    describe('400 for bodies that are not acceptable JSON', () => {
      it('malformed JSON', async () => {
        for (const body of [
          '{"title": ',
          '{title: "x"}',
          "{'title':'x'}",
          '{"a":1,}',
          'nul',
          '{"a":1}{"b":2}',
          '\u0000',
        ]) {
          await everywhere(body, 400)
        }
      })

      it('bytes that are not UTF-8', async () => {
        const prefix = Buffer.from('{"title":"')
        const suffix = Buffer.from('","date":"2026-12-04T19:30:00Z","location_id":1}')
        for (const bad of [
          [0xff, 0xfe],
          [0xc3, 0x28],
          [0xed, 0xa0, 0x80],
          [0xc0, 0xaf],
        ]) {
          await everywhere(Buffer.concat([prefix, Buffer.from(bad), suffix]), 400)
        }
      })

      it('prototype-poisoning keys', async () => {
        await everywhere('{"__proto__":{}}', 400)
        await everywhere(
          `{"title":"x","date":"2026-12-04T19:30:00Z","location_id":${ctx.locationId},"__proto__":{"admin":true}}`,
          400,
        )
      })
    })

    describe('4xx, never 5xx, for values of the wrong type or size', () => {
      it('huge numbers in POST, PUT, PATCH and paging', async () => {
        const event = await fixture()
        const before = await ctx.totalEvents()
        const date = '"2026-12-04T19:30:00Z"'
        for (const n of ['1e400', '-1e400', '9007199254740993', '123456789012345678901234567890', '1e-400']) {
          const post = await ctx.http('POST', '/events', {
            headers: jsonHeaders(ctx.service.editorAuth),
            body: `{"title":"Huge","date":${date},"location_id":${n}}`,
          })
          assertProblem(post, 422, '/location_id')
          const put = await ctx.http('PUT', `/events/${event.id}`, {
            headers: jsonHeaders(ctx.service.editorAuth),
            body: `{"id":${n},"title":"Huge","date":${date}}`,
          })
          assertProblem(put, 422, '/id')
          const patch = await ctx.http('PATCH', `/events/${event.id}`, {
            headers: jsonHeaders(ctx.service.editorAuth, types.mergePatch),
            body: `{"location_id":${n}}`,
          })
          assertProblem(patch, 422, '/location_id')
          for (const field of ['page', 'per_page']) {
            const list = await ctx.http('GET', '/events', {
              headers: jsonHeaders(),
              body: `{"${field}":${n}}`,
            })
            assert.ok(list.status >= 400 && list.status < 500, `${field}=${n} → ${list.status} ${list.text}`)
            assertProblem(list, list.status)
          }
          const title = await ctx.http('POST', '/events', {
            headers: jsonHeaders(ctx.service.editorAuth),
            body: `{"title":${n},"date":${date},"location_id":${ctx.locationId}}`,
          })
          assertProblem(title, 422, '/title')
        }
        const query = await ctx.http('GET', '/events?page=99999999999999999999999')
        assert.ok(query.status >= 400 && query.status < 500, `?page=huge → ${query.status}`)
        assert.equal(await ctx.totalEvents(), before)
        await unchanged(event)
      })

      it('wrong types for every field', async () => {
        const event = await fixture()
        const before = await ctx.totalEvents()
        const good = { title: 'Typed', date: '2026-12-04T19:30:00Z', location_id: ctx.locationId }
        for (const [field, value] of [
          ['title', 5],
          ['title', true],
          ['title', { text: 'x' }],
          ['date', 1796499000000],
          ['date', ['2026-12-04T19:30:00Z']],
          ['date', {}],
          ['location_id', String(ctx.locationId)],
          ['location_id', true],
          ['location_id', [ctx.locationId]],
          ['location_id', { id: ctx.locationId }],
        ] as const) {
          const res = await ctx.http('POST', '/events', {
            headers: jsonHeaders(ctx.service.editorAuth),
            body: { ...good, [field]: value },
          })
          assertProblem(res, 422, `/${field}`)
          if (field !== 'location_id') {
            const put = await ctx.http('PUT', `/events/${event.id}`, {
              headers: jsonHeaders(ctx.service.editorAuth),
              body: { title: good.title, date: good.date, [field]: value },
            })
            assertProblem(put, 422, `/${field}`)
          }
          const patch = await ctx.http('PATCH', `/events/${event.id}`, {
            headers: jsonHeaders(ctx.service.editorAuth, types.mergePatch),
            body: { [field]: value },
          })
          assertProblem(patch, 422, `/${field}`)
        }
        assert.equal(await ctx.totalEvents(), before)
        await unchanged(event)
      })

      it('bodies that are JSON but not an object', async () => {
        const event = await fixture()
        const before = await ctx.totalEvents()
        for (const body of ['[]', '"text"', '42', 'null', 'true', '[{"title":"x"}]']) {
          for (const [method, path, type] of [
            ['POST', '/events', types.json],
            ['PUT', `/events/${event.id}`, types.json],
            ['PATCH', `/events/${event.id}`, types.mergePatch],
          ] as const) {
            const res = await ctx.http(method, path, {
              headers: jsonHeaders(ctx.service.editorAuth, type),
              body,
            })
            assert.ok([400, 422].includes(res.status), `${method} ${body} → ${res.status} ${res.text}`)
            assertProblem(res, res.status)
          }
          const list = await ctx.http('GET', '/events', { headers: jsonHeaders(), body })
          assertProblem(list, 400)
        }
        assert.equal(await ctx.totalEvents(), before)
        await unchanged(event)
      })

      it('an empty body where one is required', async () => {
        const event = await fixture()
        for (const [method, path, type] of [
          ['POST', '/events', types.json],
          ['PUT', `/events/${event.id}`, types.json],
          ['PATCH', `/events/${event.id}`, types.mergePatch],
        ] as const) {
          const res = await ctx.http(method, path, {
            headers: jsonHeaders(ctx.service.editorAuth, type),
            body: '',
          })
          assert.ok(
            [400, 422].includes(res.status),
            `${method} with an empty body → ${res.status} ${res.text}`,
          )
          assertProblem(res, res.status)
        }
        await unchanged(event)
      })

      it('text that looks like SQL is stored as text', async () => {
        const title = `x' OR '1'='1"; DROP TABLE events; --`
        const res = await ctx.http('POST', '/events', {
          headers: jsonHeaders(ctx.service.editorAuth),
          body: { title, date: '2026-12-04T19:30:00Z', location_id: ctx.locationId },
        })
        assert.equal(res.status, 201)
        assert.equal((await ctx.readEvent(res.json().id)).event.title, title)
        assert.ok((await ctx.totalEvents()) >= 1)
      })
    })

    describe('404 for what does not exist', () => {
      it('unknown paths, non-numeric, zero, negative and out-of-range ids', async () => {
        for (const path of [
          '/nope',
          '/index.html',
          '/event',
          '/events/abc',
          '/events/0',
          '/events/-1',
          '/events/1.5',
          '/events/1e3',
          '/events/0x10',
          '/events/99999999999999999999',
          '/events/9007199254740993',
          '/events/987654',
          '/events/1/extra',
          '/locations/abc',
          '/locations/0',
          '/locations/99999999999999999999',
          '/locations/987654',
          '/locations/1/events',
          '/rel/nope',
        ]) {
          const res = await ctx.http('GET', path)
          assert.equal(res.status, 404, `GET ${path} → ${res.status} ${res.text}`)
          assertProblem(res, 404)
        }
      })

      it('writes to ids that cannot exist answer 404 and create nothing', async () => {
        const before = await ctx.totalEvents()
        for (const id of ['abc', '0', '-1', '99999999999999999999', '987654']) {
          const put = await ctx.http('PUT', `/events/${id}`, {
            headers: jsonHeaders(ctx.service.editorAuth),
            body: { title: 'Ghost', date: '2027-01-01T00:00:00Z' },
          })
          assertProblem(put, 404)
          const patch = await ctx.http('PATCH', `/events/${id}`, {
            headers: jsonHeaders(ctx.service.editorAuth, types.mergePatch),
            body: { title: 'Ghost' },
          })
          assertProblem(patch, 404)
          assertProblem(
            await ctx.http('DELETE', `/events/${id}`, { headers: { authorization: ctx.service.editorAuth } }),
            404,
          )
        }
        assert.equal(await ctx.totalEvents(), before)
      })
    })

    describe('requests that are not HTTP', () => {
      it('are answered 400 as a problem, with the headers of every response', async () => {
        for (const text of ['GARBAGE\r\n\r\n', 'GET /events HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n']) {
          const responses = await rawExchange(ctx.service.port, text)
          assert.equal(responses.length, 1, `one response to ${JSON.stringify(text)}`)
          const [res] = responses as [Response]
          assertProblem(res, 400)
          assertCommonHeaders(res, `${JSON.stringify(text)} → ${res.status}`)
          assertEveryResponse('GET', '(not HTTP)', res)
        }
      })
    })
  })
}

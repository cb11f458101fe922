// Media types and negotiation (CONTRACT.md §1, §9; seed §2 Media types): Accept picks the vendor
// representation or yields 406; request bodies must have a type the operation takes, else 415.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import {
  assertProblem,
  contractService,
  type Json,
  jsonHeaders,
  typeSet,
  types,
} from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] content negotiation`, () => {
    const ctx = contractService(target)
    let event: Json
    /** Each readable resource with its vendor type. */
    let resources: { path: string; type: string }[]
    before(async () => {
      event = await ctx.createEvent()
      resources = [
        { path: '/events', type: types.events },
        { path: `/events/${event.id}`, type: types.event },
        { path: `/locations/${ctx.locationId}`, type: types.location },
      ]
    })

    describe('Accept', () => {
      it('gives the vendor type, exactly and without parameters, for every acceptable Accept', async () => {
        for (const { path, type } of resources) {
          for (const accept of [
            undefined,
            '',
            '*/*',
            'application/*',
            'application/json',
            type,
            `${type}; q=1.0`,
            'application/xml, application/json;q=0.5',
            `text/plain;q=0.1, ${type};q=0.9`,
            `application/xml;q=0.9, ${type}`,
            'application/xml, */*;q=0.1',
          ]) {
            const res = await ctx.http('GET', path, accept === undefined ? {} : { headers: { accept } })
            assert.equal(res.status, 200, `GET ${path} Accept: ${accept} → ${res.status} ${res.text}`)
            assert.equal(res.header('content-type'), type, `GET ${path} Accept: ${accept}`)
            assert.doesNotThrow(() => res.json())
          }
        }
      })

      it('matches media types case-insensitively (RFC 9110 §8.3.1)', async () => {
        const res = await ctx.http('GET', `/events/${event.id}`, {
          headers: { accept: 'Application/VND.Service.Event+JSON' },
        })
        assert.equal(res.status, 200, res.text)
        assert.equal(res.header('content-type'), types.event)
        const post = await ctx.http('POST', '/events', {
          headers: jsonHeaders(ctx.service.editorAuth, 'Application/JSON'),
          body: ctx.newEventBody(),
        })
        assert.equal(post.status, 201, post.text)
        const patch = await ctx.http('PATCH', `/events/${post.json().id}`, {
          headers: jsonHeaders(ctx.service.editorAuth, 'Application/Merge-Patch+JSON'),
          body: { title: 'Case-insensitive' },
        })
        assert.equal(patch.status, 200, patch.text)
      })

      it('answers 406 with a problem listing the offered types when nothing acceptable is on offer', async () => {
        for (const { path, type } of resources) {
          for (const accept of [
            'application/xml',
            'text/csv',
            'image/png, application/pdf;q=0.5',
            `${type};q=0`,
            'application/vnd.service.event.v2+json',
            'application/vnd.service.events.v2+json',
          ]) {
            const res = await ctx.http('GET', path, { headers: { accept } })
            assertProblem(res, 406)
            // The HTML view of each resource is on offer too (test/contract/html-views.test.ts).
            for (const offered of [type, 'text/html']) {
              assert.ok(
                res.text.includes(offered),
                `the 406 for ${path} (Accept: ${accept}) lists ${offered}: ${res.text}`,
              )
            }
          }
        }
      })

      it("answers 406 when Accept names only another resource's vendor type", async () => {
        for (const [path, accept] of [
          [`/events/${event.id}`, types.location],
          [`/events/${event.id}`, types.events],
          ['/events', types.event],
          [`/locations/${ctx.locationId}`, types.event],
        ] as const) {
          assertProblem(await ctx.http('GET', path, { headers: { accept } }), 406)
        }
      })

      it('labels the answer application/json when the vendor type is refused with q=0 (RFC 9110 §12.5.1)', async () => {
        for (const { path, type } of resources) {
          const vendor = await ctx.http('GET', path)
          for (const accept of [
            `${type};q=0, application/json`,
            `application/json, ${type}; q=0.0`,
            'application/json, application/*;q=0',
            'application/json, */*;q=0',
          ]) {
            for (const method of ['GET', 'HEAD']) {
              const res = await ctx.http(method, path, { headers: { accept } })
              assert.equal(res.status, 200, `${method} ${path} Accept: ${accept} → ${res.status} ${res.text}`)
              assert.equal(res.header('content-type'), types.json, `${method} ${path} Accept: ${accept}`)
              if (method === 'GET') assert.equal(res.text, vendor.text, 'the same body under either label')
            }
          }
        }
      })

      it('keeps the vendor label when a more specific range accepts what a wildcard refuses', async () => {
        for (const { path, type } of resources) {
          const accept = `application/json, application/*;q=0, ${type};q=0.1`
          const res = await ctx.http('GET', path, { headers: { accept } })
          assert.equal(res.status, 200, res.text)
          assert.equal(res.header('content-type'), type, `GET ${path} Accept: ${accept}`)
        }
      })

      it('labels the answers of POST, PUT and PATCH the same way', async () => {
        const refused = `${types.event};q=0, application/json`
        for (const [accept, label] of [
          [refused, types.json],
          ['application/json', types.event],
          [undefined, types.event],
        ] as const) {
          const headers = { ...jsonHeaders(ctx.service.editorAuth), ...(accept !== undefined && { accept }) }
          const post = await ctx.http('POST', '/events', { headers, body: ctx.newEventBody() })
          assert.equal(post.status, 201, post.text)
          assert.equal(post.header('content-type'), label, `POST Accept: ${accept}`)
          const id = post.json().id
          const put = await ctx.http('PUT', `/events/${id}`, {
            headers,
            body: { title: 'Replaced', date: '2027-01-01T00:00:00Z' },
          })
          assert.equal(put.status, 200, put.text)
          assert.equal(put.header('content-type'), label, `PUT Accept: ${accept}`)
          const patch = await ctx.http('PATCH', `/events/${id}`, {
            headers: { ...headers, 'content-type': types.mergePatch },
            body: { title: 'Patched' },
          })
          assert.equal(patch.status, 200, patch.text)
          assert.equal(patch.header('content-type'), label, `PATCH Accept: ${accept}`)
        }
      })

      it('answers 406 to HEAD as to GET, without a body', async () => {
        const res = await ctx.http('HEAD', `/events/${event.id}`, { headers: { accept: 'application/xml' } })
        assert.equal(res.status, 406)
        assert.equal(res.header('content-type'), types.problem)
      })

      it('refuses a write whose response cannot be acceptable with 406 and changes nothing', async () => {
        const before = await ctx.totalEvents()
        const post = await ctx.http('POST', '/events', {
          headers: { ...jsonHeaders(ctx.service.editorAuth), accept: 'application/xml' },
          body: ctx.newEventBody(),
        })
        assertProblem(post, 406)
        assert.equal(await ctx.totalEvents(), before)
        const target = await ctx.createEvent()
        const put = await ctx.http('PUT', `/events/${target.id}`, {
          headers: { ...jsonHeaders(ctx.service.editorAuth), accept: 'application/xml' },
          body: { title: 'Not applied', date: '2027-01-01T00:00:00Z' },
        })
        assertProblem(put, 406)
        assert.deepEqual((await ctx.readEvent(target.id)).event, target)
      })
    })

    describe('request body types', () => {
      const acceptedBodyTypes = [types.event, types.json].sort()

      it('refuses other body types on POST with 415 and an Accept-Post naming what is taken', async () => {
        const before = await ctx.totalEvents()
        const body = JSON.stringify(ctx.newEventBody())
        for (const contentType of [
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/merge-patch+json',
          'application/xml',
          'application/vnd.service.location+json',
        ]) {
          const res = await ctx.http('POST', '/events', {
            headers: jsonHeaders(ctx.service.editorAuth, contentType),
            body,
          })
          assertProblem(res, 415)
          assert.deepEqual(typeSet(res.header('accept-post')), acceptedBodyTypes, `POST with ${contentType}`)
        }
        const untyped = await ctx.http('POST', '/events', {
          headers: { authorization: ctx.service.editorAuth },
          body,
        })
        assertProblem(untyped, 415)
        assert.equal(await ctx.totalEvents(), before, 'a refused POST creates nothing')
      })

      it('refuses other body types on PUT with 415 and changes nothing', async () => {
        const target = await ctx.createEvent()
        const body = JSON.stringify({ title: 'Not applied', date: '2027-01-01T00:00:00Z' })
        for (const contentType of ['text/plain', 'application/merge-patch+json', 'application/xml']) {
          const res = await ctx.http('PUT', `/events/${target.id}`, {
            headers: jsonHeaders(ctx.service.editorAuth, contentType),
            body,
          })
          assertProblem(res, 415)
        }
        assert.deepEqual((await ctx.readEvent(target.id)).event, target)
      })

      it('refuses a non-JSON QUERY body with 415 and an Accept-Query', async () => {
        const res = await ctx.http('QUERY', '/events', {
          headers: { 'content-type': 'text/plain' },
          body: 'page=1',
        })
        assertProblem(res, 415)
        assert.ok(
          typeSet(res.header('accept-query')).includes(types.json),
          `Accept-Query: ${res.header('accept-query')}`,
        )
      })

      it('refuses a body on GET /events/<id> with 415', async () => {
        const res = await ctx.http('GET', `/events/${event.id}`, {
          headers: jsonHeaders(),
          body: { page: 1 },
        })
        assertProblem(res, 415)
      })

      it('refuses a body on DELETE with 415 and keeps the event', async () => {
        const target = await ctx.createEvent()
        const res = await ctx.http('DELETE', `/events/${target.id}`, {
          headers: jsonHeaders(ctx.service.editorAuth),
          body: { id: target.id },
        })
        assertProblem(res, 415)
        assert.deepEqual((await ctx.readEvent(target.id)).event, target)
      })
    })
  })
}

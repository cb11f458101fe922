// OPTIONS and 405 (seed §4 #7 and rule 4; CONTRACT.md §3; RFC 9110 §9.3.7, §15.5.6): each resource
// states its methods in Allow, with Accept-Post / Accept-Patch / Accept-Query where they apply, and
// answers any other method with 405 and the same Allow, changing nothing.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import {
  assertProblem,
  contractService,
  type Json,
  jsonHeaders,
  methodSet,
  typeSet,
  types,
} from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

const allow = {
  events: ['GET', 'QUERY', 'POST', 'HEAD', 'OPTIONS'].sort(),
  event: ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].sort(),
  locations: ['GET', 'POST', 'HEAD', 'OPTIONS'].sort(),
  location: ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].sort(),
  entryPoint: ['GET', 'HEAD', 'OPTIONS'].sort(),
  relation: ['GET', 'HEAD', 'OPTIONS'].sort(),
}

for (const target of storeTargets) {
  describe(`[${target.name}] OPTIONS and 405`, () => {
    const ctx = contractService(target)
    let event: Json
    before(async () => {
      event = await ctx.createEvent()
    })

    describe('OPTIONS', () => {
      it('/events: 204, Allow GET QUERY POST HEAD OPTIONS, Accept-Post and Accept-Query', async () => {
        const res = await ctx.http('OPTIONS', '/events')
        assert.equal(res.status, 204)
        assert.equal(res.text, '')
        assert.deepEqual(methodSet(res.header('allow')), allow.events)
        assert.deepEqual(typeSet(res.header('accept-post')), [types.event, types.json].sort())
        assert.ok(
          typeSet(res.header('accept-query')).includes(types.json),
          `Accept-Query: ${res.header('accept-query')}`,
        )
        assert.equal(res.header('accept-patch'), undefined, 'nothing on /events takes a patch')
      })

      it('/events/<id>: 204, Allow GET PUT PATCH DELETE HEAD OPTIONS and Accept-Patch', async () => {
        const res = await ctx.http('OPTIONS', `/events/${event.id}`)
        assert.equal(res.status, 204)
        assert.equal(res.text, '')
        assert.deepEqual(methodSet(res.header('allow')), allow.event)
        assert.deepEqual(typeSet(res.header('accept-patch')), [types.mergePatch])
        assert.equal(res.header('accept-post'), undefined, 'an event takes no POST')
        assert.equal(res.header('accept-query'), undefined, 'an event takes no QUERY')
      })

      it('/locations: 204, Allow GET POST HEAD OPTIONS and Accept-Post', async () => {
        const res = await ctx.http('OPTIONS', '/locations')
        assert.equal(res.status, 204)
        assert.equal(res.text, '')
        assert.deepEqual(methodSet(res.header('allow')), allow.locations)
        assert.deepEqual(typeSet(res.header('accept-post')), [types.location, types.json].sort())
        assert.equal(res.header('accept-patch'), undefined, 'nothing on /locations takes a patch')
        assert.equal(res.header('accept-query'), undefined, '/locations takes no QUERY')
      })

      it('/locations/<id>: 204, Allow GET PUT PATCH DELETE HEAD OPTIONS and Accept-Patch', async () => {
        const res = await ctx.http('OPTIONS', `/locations/${ctx.locationId}`)
        assert.equal(res.status, 204)
        assert.equal(res.text, '')
        assert.deepEqual(methodSet(res.header('allow')), allow.location)
        assert.deepEqual(typeSet(res.header('accept-patch')), [types.mergePatch])
        assert.equal(res.header('accept-post'), undefined, 'a location takes no POST')
        assert.equal(res.header('accept-query'), undefined, 'a location takes no QUERY')
      })

      it('/ (the entry point): 204, Allow GET HEAD OPTIONS and no Accept-* fields', async () => {
        const res = await ctx.http('OPTIONS', '/')
        assert.equal(res.status, 204)
        assert.deepEqual(methodSet(res.header('allow')), allow.entryPoint)
        for (const field of ['accept-post', 'accept-patch', 'accept-query']) {
          assert.equal(res.header(field), undefined, `the entry point has no ${field}`)
        }
      })

      it('/rel/event and /rel/location: 204, Allow GET HEAD OPTIONS', async () => {
        for (const path of ['/rel/event', '/rel/location']) {
          const res = await ctx.http('OPTIONS', path)
          assert.equal(res.status, 204)
          assert.deepEqual(methodSet(res.header('allow')), allow.relation)
        }
      })

      it('needs no credentials', async () => {
        for (const path of [
          '/',
          '/events',
          `/events/${event.id}`,
          '/locations',
          `/locations/${ctx.locationId}`,
          '/rel/event',
        ]) {
          const res = await ctx.http('OPTIONS', path)
          assert.equal(res.status, 204, `OPTIONS ${path}`)
          assert.equal(res.header('www-authenticate'), undefined)
        }
      })
    })

    describe('405 Method Not Allowed', () => {
      /** The method on the path is refused with 405 and the Allow of that resource. */
      async function notAllowed(method: string, path: string, expected: string[], body?: unknown) {
        const res = await ctx.http(method, path, {
          headers:
            body === undefined
              ? { authorization: ctx.service.editorAuth }
              : jsonHeaders(ctx.service.editorAuth),
          ...(body !== undefined && { body }),
        })
        assert.equal(res.status, 405, `${method} ${path} → ${res.status} ${res.text}`)
        assertProblem(res, 405)
        assert.deepEqual(methodSet(res.header('allow')), expected, `${method} ${path}: Allow`)
        const options = await ctx.http('OPTIONS', path)
        assert.deepEqual(
          methodSet(res.header('allow')),
          methodSet(options.header('allow')),
          'the same Allow as OPTIONS',
        )
      }

      it('on /events: PUT, PATCH, DELETE, TRACE — and the collection is untouched', async () => {
        const before = await ctx.totalEvents()
        await notAllowed('DELETE', '/events', allow.events)
        await notAllowed('PUT', '/events', allow.events, { title: 'x', date: '2027-01-01T00:00:00Z' })
        await notAllowed('PATCH', '/events', allow.events, { title: 'x' })
        await notAllowed('TRACE', '/events', allow.events)
        assert.equal(await ctx.totalEvents(), before)
        assert.deepEqual((await ctx.readEvent(event.id)).event, event)
      })

      it('on /events/<id>: POST, QUERY — and the event is untouched', async () => {
        const before = await ctx.totalEvents()
        await notAllowed('POST', `/events/${event.id}`, allow.event, {
          title: 'x',
          date: '2027-01-01T00:00:00Z',
          location_id: ctx.locationId,
        })
        await notAllowed('QUERY', `/events/${event.id}`, allow.event, { page: 1 })
        assert.equal(await ctx.totalEvents(), before)
        assert.deepEqual((await ctx.readEvent(event.id)).event, event)
      })

      it('on /locations: PUT, PATCH, DELETE, QUERY — and the locations are untouched', async () => {
        const before = await ctx.http('GET', '/locations')
        await notAllowed('PUT', '/locations', allow.locations, { name: 'Renamed', address: 'Elsewhere' })
        await notAllowed('PATCH', '/locations', allow.locations, { name: 'Renamed' })
        await notAllowed('DELETE', '/locations', allow.locations)
        await notAllowed('QUERY', '/locations', allow.locations, { page: 1 })
        const after = await ctx.http('GET', '/locations')
        assert.deepEqual(after.json(), before.json(), 'the locations are unchanged')
      })

      it('on /locations/<id>: POST, QUERY — and the location is untouched', async () => {
        const before = await ctx.http('GET', `/locations/${ctx.locationId}`)
        await notAllowed('POST', `/locations/${ctx.locationId}`, allow.location, {
          name: 'New',
          address: 'New',
        })
        await notAllowed('QUERY', `/locations/${ctx.locationId}`, allow.location, { page: 1 })
        const after = await ctx.http('GET', `/locations/${ctx.locationId}`)
        assert.equal(after.status, 200)
        assert.deepEqual(after.json(), before.json(), 'the location is unchanged')
      })

      it('on /: POST, PUT, DELETE', async () => {
        await notAllowed('POST', '/', allow.entryPoint, {})
        await notAllowed('PUT', '/', allow.entryPoint, {})
        await notAllowed('DELETE', '/', allow.entryPoint)
      })

      it('on /rel/event: POST, PUT, DELETE', async () => {
        await notAllowed('POST', '/rel/event', allow.relation, {})
        await notAllowed('PUT', '/rel/event', allow.relation, {})
        await notAllowed('DELETE', '/rel/location', allow.relation)
      })
    })
  })
}

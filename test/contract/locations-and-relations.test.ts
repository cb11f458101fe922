// Locations and link relations (seed §2, §4 #4; CONTRACT.md §2 Location, §3): a location is
// reached from an event's link; the relation URIs the service uses are themselves resources
// documenting the relation, as JSON or, for a browser, as HTML. Writing locations:
// test/contract/locations.test.ts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  assertProblem,
  contractService,
  expectedLocationLinks,
  type Json,
  methodSet,
  types,
} from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

for (const target of storeTargets) {
  describe(`[${target.name}] locations and link relations`, () => {
    const ctx = contractService(target, { location: false })

    describe('GET /locations/<id>', () => {
      it('answers the location type with links, id, name and address', async () => {
        const id = await ctx.newLocation('Town Hall', '1 Market Square')
        const res = await ctx.http('GET', `/locations/${id}`, { headers: { accept: types.location } })
        assert.equal(res.status, 200)
        assert.equal(res.header('content-type'), types.location)
        const body = res.json()
        assert.deepEqual(Object.keys(body).sort(), ['address', 'id', 'links', 'name'])
        assert.deepEqual(body, {
          links: expectedLocationLinks(id),
          id,
          name: 'Town Hall',
          address: '1 Market Square',
        })
      })

      it('keeps Unicode and markup in name and address exactly', async () => {
        const id = await ctx.newLocation('Café <Zürich> & "Co"', 'Straße 1 — 😀')
        const res = await ctx.http('GET', `/locations/${id}`)
        assert.equal(res.json().name, 'Café <Zürich> & "Co"')
        assert.equal(res.json().address, 'Straße 1 — 😀')
      })

      it('is reached by following the location link of an event', async () => {
        const id = await ctx.newLocation('Riverside Pavilion', '12 Quay Street')
        const event = await ctx.createEvent({ location_id: id })
        const link = event.links.find((l: Json) => l.rel.split(' ').includes('/rel/location'))
        assert.equal(link.type, 'application/vnd.service.location')
        const res = await ctx.http('GET', link.uri, { headers: { accept: `${link.type}+json` } })
        assert.equal(res.status, 200)
        assert.equal(res.json().id, id)
        assert.equal(res.json().links[0].uri, link.uri, 'the location names itself with the same uri')
      })

      it('answers HEAD with the headers of GET and no body', async () => {
        const id = await ctx.newLocation('Old Library', '4 Chapel Lane')
        const get = await ctx.http('GET', `/locations/${id}`)
        const head = await ctx.http('HEAD', `/locations/${id}`)
        assert.equal(head.status, 200)
        assert.equal(head.text, '')
        for (const name of ['content-type', 'content-length', 'etag']) {
          assert.equal(head.header(name), get.header(name), `HEAD ${name}`)
        }
      })

      it('answers 404 for a location that does not exist', async () => {
        assertProblem(await ctx.http('GET', '/locations/987654'), 404)
        assert.equal((await ctx.http('HEAD', '/locations/987654')).status, 404)
      })
    })

    describe('link relations', () => {
      const documented = ['/rel/event', '/rel/location', '/rel/events', '/rel/locations']

      it('/rel/event, /rel/location, /rel/events and /rel/locations answer JSON documentation by default and for application/json', async () => {
        for (const rel of documented) {
          for (const accept of [undefined, 'application/json', '*/*']) {
            const res = await ctx.http('GET', rel, accept === undefined ? {} : { headers: { accept } })
            assert.equal(res.status, 200, `GET ${rel} Accept: ${accept}`)
            assert.match(res.header('content-type') ?? '', /^application\/([\w.-]+\+)?json$/)
            assert.ok(res.json() && typeof res.json() === 'object', 'a JSON document')
            assert.ok(res.text.includes(rel), `the documentation names ${rel}`)
          }
        }
      })

      it('/rel/event, /rel/location, /rel/events and /rel/locations answer HTML to a browser', async () => {
        for (const rel of documented) {
          for (const accept of ['text/html', browserAccept]) {
            const res = await ctx.http('GET', rel, { headers: { accept } })
            assert.equal(res.status, 200, `GET ${rel} Accept: ${accept}`)
            assert.match(res.header('content-type') ?? '', /^text\/html\b/)
            assert.match(res.text, /<html[\s>]/i)
            assert.ok(res.text.includes(rel), `the page names ${rel}`)
          }
        }
      })

      it('documents the target: its media type, the methods of its Allow field, and fields generated from the schemas', async () => {
        const eventId = (await ctx.createEvent({ location_id: await ctx.newLocation() })).id
        const locationId = await ctx.newLocation()
        const targets = {
          '/rel/event': [`/events/${eventId}`, types.event],
          '/rel/events': ['/events', types.events],
          '/rel/location': [`/locations/${locationId}`, types.location],
          '/rel/locations': ['/locations', types.locations],
        } as const
        const docs: Record<string, Json> = {}
        for (const [rel, [path, type]] of Object.entries(targets)) {
          const doc = (await ctx.http('GET', rel)).json()
          docs[rel] = doc
          assert.equal(doc.rel, rel)
          assert.equal(doc.media_type, type)
          assert.equal(doc.type, type.replace('+json', ''), 'the type a link carries')
          const allow = (await ctx.http('OPTIONS', path)).header('allow')
          assert.deepEqual([...doc.methods].sort(), methodSet(allow), `${rel}: the methods of ${path}`)
        }
        const field = (doc: Json, name: string) => doc.fields.find((f: Json) => f.name === name)
        const event = docs['/rel/event']
        assert.deepEqual(
          event.fields.map((f: Json) => f.name),
          ['links', 'id', 'title', 'date'],
        )
        assert.deepEqual(field(event, 'id'), {
          name: 'id',
          type: 'integer',
          required: true,
          read_only: true,
          rules: ['≥ 1', '≤ 9007199254740991'],
          description: 'assigned by the service, never reused',
        })
        assert.equal(field(event, 'links').read_only, true)
        assert.deepEqual(field(event, 'title').rules, ['1–200 characters', 'not only whitespace'])
        assert.equal(field(event, 'title').read_only, undefined)
        assert.ok(field(event, 'date').rules.includes('RFC 3339 date-time'))
        const put = event.requests.find((r: Json) => r.method === 'PUT')
        assert.deepEqual(
          put.fields.filter((f: Json) => f.required).map((f: Json) => f.name),
          ['title', 'date'],
        )
        const patch = event.requests.find((r: Json) => r.method === 'PATCH')
        assert.deepEqual(patch.media_types, [types.mergePatch])
        assert.ok(patch.fields.every((f: Json) => !f.required))
        assert.ok(patch.fields.some((f: Json) => f.name === 'location_id'))
        const events = docs['/rel/events']
        assert.deepEqual(
          events.fields.map((f: Json) => [f.name, f.read_only]),
          [
            ['total', true],
            ['events', true],
          ],
        )
        const post = events.requests.find((r: Json) => r.method === 'POST')
        assert.deepEqual(
          post.fields.map((f: Json) => [f.name, f.required]),
          [
            ['title', true],
            ['date', true],
            ['location_id', true],
          ],
        )
        const get = events.requests.find((r: Json) => r.method === 'GET')
        assert.deepEqual(field(get, 'q').rules, ['1–100 characters'])
        assert.deepEqual(field(docs['/rel/location'], 'address').rules, [
          '1–300 characters',
          'not only whitespace',
        ])
        const page = await ctx.http('GET', '/rel/event', { headers: { accept: browserAccept } })
        for (const text of ['1–200 characters', 'RFC 3339 date-time', 'read-only', types.event, 'PATCH']) {
          assert.ok(page.text.includes(text), `the page says ${text}`)
        }
      })

      it('every relation an event uses can be dereferenced', async () => {
        const id = await ctx.newLocation()
        const event = await ctx.createEvent({ location_id: id })
        const rels = new Set<string>(
          event.links.flatMap((l: Json) => l.rel.split(' ').filter((r: string) => r.startsWith('/'))),
        )
        assert.deepEqual([...rels].sort(), ['/rel/event', '/rel/location'])
        for (const rel of rels) {
          assert.equal((await ctx.http('GET', rel)).status, 200, `GET ${rel}`)
        }
      })

      it('every relation a location and the entry point use can be dereferenced', async () => {
        const id = await ctx.newLocation()
        const location = (await ctx.http('GET', `/locations/${id}`)).json()
        const entry = (await ctx.http('GET', '/')).json()
        const used = new Set<string>(
          [...location.links, ...entry.links].flatMap((l: Json) =>
            l.rel.split(' ').filter((r: string) => r.startsWith('/')),
          ),
        )
        assert.deepEqual([...used].sort(), ['/rel/events', '/rel/location', '/rel/locations'])
        for (const rel of used) {
          assert.equal((await ctx.http('GET', rel)).status, 200, `GET ${rel}`)
        }
      })
    })
  })
}

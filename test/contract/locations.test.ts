// Locations as resources of their own (CONTRACT.md §2 Location and location collection, §3):
// the paged collection /locations, POST, PUT, PATCH and DELETE by editors with the same
// credentials, validation and preconditions as events, and 409 for a location events still take
// place at — race-free against an event created there at the same moment.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import pg from 'pg'
import {
  assertProblem,
  contractService,
  expectedLocationLinks,
  type Json,
  jsonHeaders,
  parseLinkHeader,
  types,
} from '../support/contract.ts'
import type { Response } from '../support/service.ts'
import { postgres, storeTargets } from '../support/stores.ts'

/** A location representation: fields in contract order, exactly its two links, and the values. */
function assertLocation(location: Json, expected: { id?: number; name?: string; address?: string } = {}) {
  assert.deepEqual(Object.keys(location), ['links', 'id', 'name', 'address'], 'location fields, in order')
  assert.ok(Number.isSafeInteger(location.id) && location.id > 0, `id is a positive integer: ${location.id}`)
  assert.deepEqual(location.links, expectedLocationLinks(location.id), 'self edit, then its events')
  if (expected.id !== undefined) assert.equal(location.id, expected.id)
  if (expected.name !== undefined) assert.equal(location.name, expected.name)
  if (expected.address !== undefined) assert.equal(location.address, expected.address)
}

for (const target of storeTargets) {
  describe(`[${target.name}] the location collection`, () => {
    const ctx = contractService(target, { location: false })
    const count = 7
    let ids: number[]
    before(async () => {
      ids = []
      for (let i = 0; i < count; i++) ids.push(await ctx.newLocation(`Hall ${i}`, `${i} Main Street`))
    })

    const list = (path = '/locations', body?: unknown, headers: Record<string, string> = {}) =>
      ctx.http('GET', path, {
        headers: { ...(body !== undefined && jsonHeaders()), ...headers },
        ...(body !== undefined && { body }),
      })
    const idsOf = (res: Response): number[] => res.json().locations.map((l: Json) => l.id)

    it('answers every location in id order with the true total, in the collection type', async () => {
      const res = await list()
      assert.equal(res.status, 200, res.text)
      assert.equal(res.header('content-type'), types.locations)
      const body = res.json()
      assert.deepEqual(Object.keys(body), ['total', 'locations'], 'exactly total and locations, in order')
      assert.equal(body.total, count)
      assert.deepEqual(idsOf(res), ids)
      body.locations.forEach((l: Json, i: number) => {
        assertLocation(l, { name: `Hall ${i}`, address: `${i} Main Street` })
      })
      assert.equal(res.header('cache-control'), 'no-cache')
    })

    it('is labelled with its own type for application/json and */*, and 406 for other types', async () => {
      for (const accept of ['application/json', '*/*', types.locations]) {
        const res = await list('/locations', undefined, { accept })
        assert.equal(res.status, 200, `Accept: ${accept}`)
        assert.equal(res.header('content-type'), types.locations, `Accept: ${accept}`)
      }
      assertProblem(await list('/locations', undefined, { accept: 'text/plain' }), 406)
      assertProblem(await list('/locations', undefined, { accept: types.events }), 406)
    })

    it('pages with page and per_page from the body or the query string, with first/prev/next/last in Link', async () => {
      for (const res of [
        await list('/locations', { page: 2, per_page: 3 }),
        await list('/locations?page=2&per_page=3'),
      ]) {
        assert.equal(res.status, 200, res.text)
        assert.equal(res.json().total, count)
        assert.deepEqual(idsOf(res), ids.slice(3, 6))
        const links = parseLinkHeader(res.header('link'))
        assert.deepEqual(Object.fromEntries(links), {
          first: '/locations?page=1&per_page=3',
          prev: '/locations?page=1&per_page=3',
          next: '/locations?page=3&per_page=3',
          last: '/locations?page=3&per_page=3',
        })
      }
      const first = await list('/locations?per_page=3')
      assert.deepEqual([...parseLinkHeader(first.header('link')).keys()], ['first', 'next', 'last'])
      const beyond = await list('/locations?page=9&per_page=3')
      assert.equal(beyond.status, 200)
      assert.deepEqual(beyond.json(), { total: count, locations: [] })
      assert.equal(parseLinkHeader(beyond.header('link')).get('prev'), '/locations?page=3&per_page=3')
    })

    it('follows its own next links to every location exactly once', async () => {
      const seen: number[] = []
      let next: string | undefined = '/locations?page=1&per_page=2'
      while (next) {
        const res = await list(next)
        assert.equal(res.status, 200, res.text)
        seen.push(...idsOf(res))
        next = parseLinkHeader(res.header('link')).get('next')
      }
      assert.deepEqual(seen, ids)
    })

    it('answers HEAD with the headers of GET and no body', async () => {
      const get = await list('/locations?per_page=2')
      const head = await ctx.http('HEAD', '/locations?per_page=2')
      assert.equal(head.status, 200)
      for (const name of ['content-type', 'content-length', 'etag', 'link']) {
        assert.equal(head.header(name), get.header(name), `HEAD ${name}`)
      }
    })

    it('refuses bad paging with 400, as /events does', async () => {
      for (const path of [
        '/locations?page=0',
        '/locations?per_page=0',
        '/locations?per_page=101',
        '/locations?page=01',
        '/locations?page=1.0',
        '/locations?page=1&page=2',
        '/locations?name=Hall',
        '/locations?location_id=1',
      ]) {
        assertProblem(await list(path), 400)
      }
      for (const body of [{ page: 0 }, { per_page: 101 }, { page: '1' }, { name: 'Hall' }, { page: 1.5 }]) {
        assertProblem(await list('/locations', body), 400)
      }
      assertProblem(await list('/locations?page=2', { page: 3 }), 400)
      assertProblem(await ctx.http('GET', '/locations', { headers: jsonHeaders(), body: '{"page":' }), 400)
    })

    it('carries an ETag per page that answers 304 until a location on it changes', async () => {
      const res = await list('/locations?per_page=2')
      const etag = res.header('etag') as string
      assert.match(etag, /^"[^"]+"$/, 'a strong ETag')
      const other = await list('/locations?page=2&per_page=2')
      assert.notEqual(other.header('etag'), etag, 'each page has its own tag')
      const again = await list('/locations?per_page=2', undefined, { 'if-none-match': etag })
      assert.equal(again.status, 304)
      assert.equal(again.header('etag'), etag)
      assert.equal(again.header('link'), res.header('link'))
      assertProblem(await list('/locations?per_page=2', undefined, { 'if-match': '"stale"' }), 412)
      const patched = await ctx.http('PATCH', `/locations/${ids[0]}`, {
        headers: jsonHeaders(ctx.service.editorAuth, types.mergePatch),
        body: { name: 'Hall 0' },
      })
      assert.equal(patched.status, 200, patched.text)
      const changed = await list('/locations?per_page=2', undefined, { 'if-none-match': etag })
      assert.equal(changed.status, 200, 'the version of a location on the page changed')
      assert.notEqual(changed.header('etag'), etag)
    })
  })

  describe(`[${target.name}] writing locations`, () => {
    const ctx = contractService(target)
    const editor = () => ctx.service.editorAuth
    const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      ctx.http(method, path, {
        headers: {
          ...(body !== undefined && {
            'content-type': method === 'PATCH' ? types.mergePatch : types.json,
          }),
          authorization: editor(),
          ...headers,
        },
        ...(body !== undefined && { body }),
      })
    const create = async (name = 'Town Hall', address = '1 Market Square') => {
      const res = await send('POST', '/locations', { name, address })
      assert.equal(res.status, 201, res.text)
      return res.json()
    }
    const read = async (id: number) => {
      const res = await ctx.http('GET', `/locations/${id}`)
      assert.equal(res.status, 200, res.text)
      return { location: res.json(), etag: res.header('etag') as string }
    }
    /** The location reads back exactly as `expected`. */
    const unchanged = async (expected: Json) => {
      assert.deepEqual((await read(expected.id)).location, expected, 'a refused write changes nothing')
    }

    describe('POST /locations', () => {
      it('answers 201 with Location, ETag and the location; a later GET shows it', async () => {
        const res = await send('POST', '/locations', {
          name: 'Riverside Pavilion',
          address: '12 Quay Street',
        })
        assert.equal(res.status, 201, res.text)
        assert.equal(res.header('content-type'), types.location)
        const body = res.json()
        assertLocation(body, { name: 'Riverside Pavilion', address: '12 Quay Street' })
        assert.equal(res.header('location'), `/locations/${body.id}`)
        const { location, etag } = await read(body.id)
        assert.deepEqual(location, body)
        assert.equal(res.header('etag'), etag)
      })

      it('takes the location media type as body type and keeps Unicode exactly', async () => {
        const res = await send(
          'POST',
          '/locations',
          { name: 'Café <Zürich> & "Co"', address: 'Straße 1 — 😀' },
          { 'content-type': types.location },
        )
        assert.equal(res.status, 201, res.text)
        assertLocation(res.json(), { name: 'Café <Zürich> & "Co"', address: 'Straße 1 — 😀' })
      })

      it('needs credentials (401 with a Basic challenge) and an editor (403), creating nothing', async () => {
        const before = (await ctx.http('GET', '/locations?per_page=1')).json().total
        const body = { name: 'Nope', address: 'Nowhere' }
        const anonymous = await ctx.http('POST', '/locations', { headers: jsonHeaders(), body })
        assertProblem(anonymous, 401)
        assert.match(anonymous.header('www-authenticate') ?? '', /^Basic realm="events"/)
        assertProblem(await send('POST', '/locations', body, { authorization: ctx.service.readerAuth }), 403)
        assert.equal((await ctx.http('GET', '/locations?per_page=1')).json().total, before)
      })

      it('refuses each broken field rule with 422 naming the field, creating nothing', async () => {
        const before = (await ctx.http('GET', '/locations?per_page=1')).json().total
        const good = { name: 'Fine', address: 'Fine Street 1' }
        const cases: [unknown, string][] = [
          [{ address: good.address }, '/name'],
          [{ name: good.name }, '/address'],
          [{ ...good, name: '' }, '/name'],
          [{ ...good, address: '' }, '/address'],
          [{ ...good, name: ' \t\n ' }, '/name'],
          [{ ...good, address: '   ' }, '/address'],
          [{ ...good, name: 'x'.repeat(201) }, '/name'],
          [{ ...good, address: 'x'.repeat(301) }, '/address'],
          [{ ...good, name: 5 }, '/name'],
          [{ ...good, address: null }, '/address'],
          [{ ...good, capacity: 300 }, '/capacity'],
          [{ ...good, id: 5 }, '/id'],
          [{ ...good, name: 'nul \u0000 inside' }, '/name'],
        ]
        for (const [body, pointer] of cases) {
          assertProblem(await send('POST', '/locations', body), 422, pointer)
        }
        assert.equal((await send('POST', '/locations', { ...good, name: 'x'.repeat(200) })).status, 201)
        assert.equal((await send('POST', '/locations', { ...good, address: 'y'.repeat(300) })).status, 201)
        assert.equal((await ctx.http('GET', '/locations?per_page=1')).json().total, before + 2)
      })

      it('refuses other body types (415 with Accept-Post) and an empty body (400)', async () => {
        const res = await send('POST', '/locations', 'name=x', { 'content-type': 'text/plain' })
        assertProblem(res, 415)
        assert.equal(res.header('accept-post'), `${types.location}, ${types.json}`)
        assertProblem(await send('POST', '/locations', '', { 'content-type': types.json }), 400)
      })
    })

    describe('PUT /locations/<id>', () => {
      it('replaces name and address, keeps id and links, with a new ETag', async () => {
        const created = await create()
        const { etag } = await read(created.id)
        const res = await send('PUT', `/locations/${created.id}`, { name: 'New Hall', address: '2 Square' })
        assert.equal(res.status, 200, res.text)
        assertLocation(res.json(), { id: created.id, name: 'New Hall', address: '2 Square' })
        assert.notEqual(res.header('etag'), etag)
        assert.deepEqual((await read(created.id)).location, res.json())
      })

      it('accepts the whole representation back (GET, edit, PUT), ignoring its links', async () => {
        const created = await create()
        const res = await send('PUT', `/locations/${created.id}`, {
          ...created,
          links: ['junk'],
          name: 'Edited in place',
        })
        assert.equal(res.status, 200, res.text)
        assert.deepEqual(res.json(), { ...created, name: 'Edited in place' })
      })

      it('refuses a missing field, another id and unknown fields with 422, changing nothing', async () => {
        const created = await create()
        const path = `/locations/${created.id}`
        assertProblem(await send('PUT', path, { name: 'Only a name' }), 422, '/address')
        assertProblem(await send('PUT', path, { address: 'Only an address' }), 422, '/name')
        assertProblem(await send('PUT', path, { ...created, id: created.id + 1 }), 422, '/id')
        assertProblem(await send('PUT', path, { name: 'A', address: 'B', colour: 'red' }), 422, '/colour')
        assertProblem(await send('PUT', path, { name: ' ', address: 'B' }), 422, '/name')
        await unchanged(created)
      })

      it('never creates: an unknown id is 404', async () => {
        assertProblem(await send('PUT', '/locations/987654', { name: 'Ghost', address: 'Nowhere' }), 404)
        assertProblem(await ctx.http('GET', '/locations/987654'), 404)
      })

      it('needs an editor: 401 and 403, changing nothing', async () => {
        const created = await create()
        const body = { name: 'Hijack', address: 'Elsewhere' }
        const path = `/locations/${created.id}`
        assertProblem(await ctx.http('PUT', path, { headers: jsonHeaders(), body }), 401)
        assertProblem(await send('PUT', path, body, { authorization: ctx.service.readerAuth }), 403)
        await unchanged(created)
      })
    })

    describe('PATCH /locations/<id> (application/merge-patch+json)', () => {
      it('changes only the field sent; an empty patch changes nothing and keeps the ETag', async () => {
        const created = await create('Old Library', '4 Chapel Lane')
        const path = `/locations/${created.id}`
        const named = await send('PATCH', path, { name: 'New Library' })
        assert.equal(named.status, 200, named.text)
        assertLocation(named.json(), { name: 'New Library', address: '4 Chapel Lane' })
        const moved = await send('PATCH', path, { address: '5 Chapel Lane' })
        assertLocation(moved.json(), { name: 'New Library', address: '5 Chapel Lane' })
        const empty = await send('PATCH', path, {})
        assert.equal(empty.status, 200)
        assert.deepEqual(empty.json(), moved.json())
        assert.equal(empty.header('etag'), moved.header('etag'))
        assert.deepEqual((await read(created.id)).location, moved.json())
      })

      it('refuses null, invalid values and unknown fields with 422, and application/json with 415', async () => {
        const created = await create()
        const path = `/locations/${created.id}`
        assertProblem(await send('PATCH', path, { name: null }), 422, '/name')
        assertProblem(await send('PATCH', path, { address: '' }), 422, '/address')
        assertProblem(await send('PATCH', path, { address: 'x'.repeat(301) }), 422, '/address')
        assertProblem(await send('PATCH', path, { colour: 'red' }), 422, '/colour')
        const wrongType = await send('PATCH', path, { name: 'x' }, { 'content-type': types.json })
        assertProblem(wrongType, 415)
        assert.equal(wrongType.header('accept-patch'), types.mergePatch)
        await unchanged(created)
      })

      it('answers 404 for an unknown location', async () => {
        assertProblem(await send('PATCH', '/locations/987654', { name: 'Ghost' }), 404)
      })
    })

    describe('DELETE /locations/<id>', () => {
      it('answers 204 without a body; afterwards GET is 404 and the collection omits it', async () => {
        const created = await create()
        const res = await send('DELETE', `/locations/${created.id}`)
        assert.equal(res.status, 204)
        assertProblem(await ctx.http('GET', `/locations/${created.id}`), 404)
        assertProblem(await send('DELETE', `/locations/${created.id}`), 404)
        const all = await ctx.http('GET', '/locations?per_page=100')
        assert.ok(!all.json().locations.some((l: Json) => l.id === created.id))
      })

      it('answers 409 saying how many events still take place there, until they are gone', async () => {
        const created = await create()
        const path = `/locations/${created.id}`
        const events = [
          await ctx.createEvent({ location_id: created.id }),
          await ctx.createEvent({ location_id: created.id }),
          await ctx.createEvent({ location_id: created.id }),
        ]
        const three = await send('DELETE', path)
        assertProblem(three, 409)
        assert.equal(three.json().title, 'Conflict')
        assert.match(
          three.json().detail,
          new RegExp(`^3 events still take place at location ${created.id}\\b`),
        )
        await unchanged(created)
        for (const event of events.slice(1)) {
          assert.equal((await send('DELETE', `/events/${event.id}`)).status, 204)
        }
        const one = await send('DELETE', path)
        assertProblem(one, 409)
        assert.match(one.json().detail, new RegExp(`^1 event still takes place at location ${created.id}\\b`))
        // Moved elsewhere, the last event no longer holds the location.
        const moved = await send('PATCH', `/events/${events[0].id}`, { location_id: ctx.locationId })
        assert.equal(moved.status, 200, moved.text)
        assert.equal((await send('DELETE', path)).status, 204)
      })

      it('prefers 404 and 412 to 409: preconditions are judged first', async () => {
        const created = await create()
        await ctx.createEvent({ location_id: created.id })
        assertProblem(
          await send('DELETE', `/locations/${created.id}`, undefined, { 'if-match': '"v999"' }),
          412,
        )
        assertProblem(await send('DELETE', '/locations/987654'), 404)
      })

      it('needs an editor: 401 and 403, deleting nothing', async () => {
        const created = await create()
        const path = `/locations/${created.id}`
        assertProblem(await ctx.http('DELETE', path), 401)
        assertProblem(
          await ctx.http('DELETE', path, { headers: { authorization: ctx.service.readerAuth } }),
          403,
        )
        await unchanged(created)
      })
    })

    describe('preconditions', () => {
      it('PUT, PATCH and DELETE with a stale If-Match answer 412 and change nothing; the current one wins', async () => {
        const created = await create()
        const path = `/locations/${created.id}`
        const { etag } = await read(created.id)
        const renamed = await send('PATCH', path, { name: 'Renamed' }, { 'if-match': etag })
        assert.equal(renamed.status, 200, renamed.text)
        const current = (await read(created.id)).location
        for (const [method, body] of [
          ['PUT', { name: 'Stale', address: 'Stale' }],
          ['PATCH', { name: 'Stale' }],
          ['DELETE', undefined],
        ] as const) {
          const res = await send(method, path, body, { 'if-match': etag })
          assertProblem(res, 412)
          assert.match(res.json().detail, /If-Match/)
        }
        await unchanged(current)
        const deleted = await send('DELETE', path, undefined, {
          'if-match': renamed.header('etag') as string,
        })
        assert.equal(deleted.status, 204)
      })

      it('If-None-Match: * on PUT is 412 (PUT never creates); POST /locations with it is 412 too', async () => {
        const created = await create()
        assertProblem(
          await send(
            'PUT',
            `/locations/${created.id}`,
            { name: 'A', address: 'B' },
            { 'if-none-match': '*' },
          ),
          412,
        )
        assertProblem(
          await send('POST', '/locations', { name: 'A', address: 'B' }, { 'if-none-match': '*' }),
          412,
        )
        await unchanged(created)
      })

      it('lets exactly one of ten concurrent PUTs with the same If-Match win; the rest get 412', async () => {
        const created = await create()
        const { etag } = await read(created.id)
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            send(
              'PUT',
              `/locations/${created.id}`,
              { name: `Writer ${i}`, address: 'Race' },
              { 'if-match': etag },
            ),
          ),
        )
        const statuses = results.map((r) => r.status).sort()
        assert.deepEqual(statuses, [200, ...Array(9).fill(412)])
        const winner = results.find((r) => r.status === 200) as Response
        assert.deepEqual((await read(created.id)).location, winner.json())
      })
    })

    describe('deleting a location while an event is created there', () => {
      it('either refuses the delete (409) or the event (422): never a 5xx, never an event without its location', async () => {
        const outcomes = new Map<string, number>()
        for (let round = 0; round < 25; round++) {
          const location = await create(`Race ${round}`, 'Contested Street')
          const [deleted, posted] = await Promise.all([
            send('DELETE', `/locations/${location.id}`),
            send('POST', '/events', ctx.newEventBody({ location_id: location.id })),
          ])
          const pair = `${deleted.status}/${posted.status}`
          outcomes.set(pair, (outcomes.get(pair) ?? 0) + 1)
          // The checked client has already failed any 5xx.
          assert.ok(['204/422', '409/201'].includes(pair), `DELETE ${deleted.status}, POST ${posted.status}`)
          if (posted.status === 422) {
            assertProblem(posted, 422, '/location_id')
            assertProblem(await ctx.http('GET', `/locations/${location.id}`), 404)
          } else {
            assert.match(deleted.json().detail, /^1 event still takes place/)
            const event = await ctx.http('GET', posted.header('location') as string)
            assert.equal(event.status, 200)
            assert.equal((await ctx.http('GET', `/locations/${location.id}`)).status, 200)
          }
        }
        // Every event listed names a location that exists.
        const events = (await ctx.http('GET', '/events?per_page=100')).json().events
        for (const event of events) {
          const link = event.links.find((l: Json) => l.rel === '/rel/location')
          assert.equal((await ctx.http('GET', link.uri)).status, 200, `${link.uri} of event ${event.id}`)
        }
        // Shown when the test runs, to see that both orders happened.
        process.stdout.write(
          `# ${target.name} delete/create race outcomes: ${JSON.stringify([...outcomes])}\n`,
        )
      })
    })
  })
}

// Both orders of the race above, forced on PostgreSQL (READ COMMITTED) by holding the other side's
// transaction open from a connection of the test's own.
const postgresTarget = postgres
if (postgresTarget) {
  describe('[postgres] a location deleted while an event is written there, each order forced', () => {
    const ctx = contractService(postgresTarget)
    const editor = () => jsonHeaders(ctx.service.editorAuth)

    async function withOpenTransaction(work: (client: pg.Client) => Promise<void>) {
      const client = new pg.Client({ connectionString: ctx.service.databaseUrl })
      await client.connect()
      try {
        await client.query('begin')
        await work(client)
      } finally {
        await client.query('rollback').catch(() => {})
        await client.end()
      }
    }
    /** Resolves once the service's statement waits for a lock held by the test's transaction. */
    async function waitingForLock() {
      const watcher = new pg.Client({ connectionString: ctx.service.databaseUrl })
      await watcher.connect()
      try {
        for (let i = 0; i < 200; i++) {
          const { rows } = await watcher.query(
            "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
          )
          if (rows[0].n > 0) return
          await new Promise((resolve) => setTimeout(resolve, 25))
        }
        assert.fail('the service never waited for the lock')
      } finally {
        await watcher.end()
      }
    }

    it('an event whose location is deleted before it commits fails with 422 (the foreign key), leaving no event', async () => {
      const id = await ctx.newLocation('Doomed Hall', '1 Last Street')
      const before = await ctx.totalEvents()
      let posted: Promise<Response> | undefined
      await withOpenTransaction(async (client) => {
        // The test deletes the location first and holds its transaction open: the event's key check waits.
        await client.query('delete from locations where id = $1', [id])
        posted = ctx.http('POST', '/events', {
          headers: editor(),
          body: ctx.newEventBody({ location_id: id }),
        })
        await waitingForLock()
        await client.query('commit')
      })
      const res = await (posted as Promise<Response>)
      assertProblem(res, 422, '/location_id')
      assert.equal(await ctx.totalEvents(), before)
    })

    it('a delete that waits for an event being written there counts it and answers 409', async () => {
      const id = await ctx.newLocation('Busy Hall', '2 Full Street')
      let deleted: Promise<Response> | undefined
      await withOpenTransaction(async (client) => {
        await client.query("insert into events (title, starts_at, location_id) values ('Late', 0, $1)", [id])
        deleted = ctx.http('DELETE', `/locations/${id}`, {
          headers: { authorization: ctx.service.editorAuth },
        })
        await waitingForLock()
        await client.query('commit')
      })
      const res = await (deleted as Promise<Response>)
      assertProblem(res, 409)
      assert.match(res.json().detail, new RegExp(`^1 event still takes place at location ${id}\\b`))
    })
  })
}

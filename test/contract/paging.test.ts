// Paging of /events (seed §4 #1 and rule 2; CONTRACT.md §2 Collection, §3 paging, QUERY, HEAD):
// defaults, order, bounds, the query-string form and the Link field. One fixture of 45 events is
// made before the tests and never changed by them.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import {
  assertEvent,
  assertProblem,
  contractService,
  type Json,
  jsonHeaders,
  parseLinkHeader,
  types,
} from '../support/contract.ts'
import type { Response } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const eventCount = 45
const page = (n: number, perPage: number) => `/events?page=${n}&per_page=${perPage}`

for (const target of storeTargets) {
  describe(`[${target.name}] paging of /events`, () => {
    const ctx = contractService(target)
    /** Ids of all events in the contract's order: date ascending, then id. */
    let ordered: number[]
    before(async () => {
      const locations = [ctx.locationId, await ctx.newLocation('Old Library', '4 Chapel Lane')]
      const created: { id: number; date: number }[] = []
      // Insertion order is not date order, and every date is shared by three events.
      for (let i = 0; i < eventCount; i++) {
        const day = (i * 7) % 15
        const date = new Date(Date.UTC(2026, 11, 1 + day, 19, 30)).toISOString().replace('.000Z', 'Z')
        const event = await ctx.createEvent({
          title: `Paging ${i}`,
          date,
          location_id: locations[i % 2] as number,
        })
        created.push({ id: event.id, date: Date.parse(date) })
      }
      ordered = created.sort((a, b) => a.date - b.date || a.id - b.id).map((e) => e.id)
    })

    const list = (body?: unknown, path = '/events', method = 'GET') =>
      ctx.http(method, path, body === undefined ? {} : { headers: jsonHeaders(), body })
    const ids = (res: Response): number[] => res.json().events.map((e: Json) => e.id)

    function assertPage(res: Response, n: number, perPage: number) {
      assert.equal(res.status, 200, res.text)
      assert.equal(res.header('content-type'), types.events)
      const body = res.json()
      assert.deepEqual(Object.keys(body), ['total', 'events'], 'exactly total and events, in this order')
      assert.equal(body.total, eventCount, 'total counts every event, not the page')
      assert.deepEqual(ids(res), ordered.slice((n - 1) * perPage, n * perPage), `page ${n} of ${perPage}`)
      for (const event of body.events) assertEvent(event)
    }

    it('without a body answers page 1 of 20 with the true total', async () => {
      assertPage(await list(), 1, 20)
    })

    it('treats an empty body and an empty object like no body', async () => {
      const empty = await ctx.http('GET', '/events', { headers: jsonHeaders(), body: '' })
      assertPage(empty, 1, 20)
      assertPage(await list({}), 1, 20)
    })

    it('answers the page asked for in the JSON body, in date order then id', async () => {
      assertPage(await list({ page: 2, per_page: 10 }), 2, 10)
      assertPage(await list({ page: 1, per_page: 7 }), 1, 7)
      assertPage(await list({ page: 5, per_page: 10 }), 5, 10)
      assertPage(await list({ page: 3 }), 3, 20)
      assertPage(await list({ per_page: 4 }), 1, 4)
    })

    it('accepts per_page from 1 to 100', async () => {
      assertPage(await list({ per_page: 1 }), 1, 1)
      assertPage(await list({ page: 45, per_page: 1 }), 45, 1)
      const all = await list({ per_page: 100 })
      assertPage(all, 1, 100)
      assert.equal(all.json().events.length, eventCount)
    })

    it('answers 200 with no events and the true total for a page past the end', async () => {
      for (const body of [
        { page: 6, per_page: 10 },
        { page: 1000 },
        { page: 46, per_page: 1 },
        // The highest page taken (domain/paging.ts maxPage), far past the deep-page threshold.
        { page: 1_000_000_000, per_page: 100 },
      ]) {
        const res = await list(body)
        assert.equal(res.status, 200, res.text)
        assert.deepEqual(res.json(), { total: eventCount, events: [] })
        const links = parseLinkHeader(res.header('link'))
        assert.equal(links.get('first'), page(1, body.per_page ?? 20))
        assert.ok(!links.has('next'), 'no next page past the end')
      }
    })

    it('accepts the parameters in the query string and gives the same page as the body', async () => {
      const fromQuery = await list(undefined, page(3, 7))
      assertPage(fromQuery, 3, 7)
      assert.deepEqual(fromQuery.json(), (await list({ page: 3, per_page: 7 })).json())
      assertPage(await list(undefined, '/events?per_page=9'), 1, 9)
      assertPage(await list(undefined, '/events?page=2'), 2, 20)
    })

    it('accepts body and query string together when they agree, and answers 400 when they differ', async () => {
      assertPage(await list({ page: 2, per_page: 5 }, page(2, 5)), 2, 5)
      assertPage(await list({ page: 2 }, '/events?per_page=5'), 2, 5)
      assertProblem(await list({ page: 2, per_page: 5 }, page(3, 5)), 400)
      assertProblem(await list({ page: 2, per_page: 5 }, page(2, 6)), 400)
      assertProblem(await list({ per_page: 5 }, '/events?per_page=10'), 400)
    })

    it('answers 400 for non-integer, out-of-range or unknown parameters in the body', async () => {
      for (const body of [
        { page: 0 },
        { page: -1 },
        { page: 1.5 },
        { page: '2' },
        { page: true },
        { page: null },
        { page: [1] },
        { per_page: 0 },
        { per_page: 101 },
        { per_page: 1000 },
        { per_page: 2.5 },
        { per_page: '10' },
        { page: 1_000_000_001 },
        { page: Number.MAX_SAFE_INTEGER },
        { page: 1, sort: 'date' },
        { limit: 10 },
      ]) {
        const res = await list(body)
        assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.status} ${res.text}`)
        assertProblem(res, 400)
      }
    })

    it('answers 400 for non-integer, out-of-range or unknown parameters in the query string', async () => {
      for (const query of [
        'page=abc',
        'page=1.5',
        'page=0',
        'page=-2',
        'page=',
        'per_page=0',
        'per_page=101',
        'per_page=ten',
        'page=1000000001',
        'page=9007199254740991',
        'page=1&page=2',
        'foo=1',
        'sort=date',
      ]) {
        const res = await list(undefined, `/events?${query}`)
        assert.equal(res.status, 400, `?${query} → ${res.status} ${res.text}`)
        assertProblem(res, 400)
      }
    })

    it('links first, prev, next and last as /events?page=N&per_page=M', async () => {
      const middle = parseLinkHeader((await list({ page: 3, per_page: 10 })).header('link'))
      assert.deepEqual(Object.fromEntries(middle), {
        first: page(1, 10),
        prev: page(2, 10),
        next: page(4, 10),
        last: page(5, 10),
      })
      const first = parseLinkHeader((await list()).header('link'))
      assert.deepEqual(Object.fromEntries(first), {
        first: page(1, 20),
        next: page(2, 20),
        last: page(3, 20),
      })
      const last = parseLinkHeader((await list({ page: 5, per_page: 10 })).header('link'))
      assert.deepEqual(Object.fromEntries(last), { first: page(1, 10), prev: page(4, 10), last: page(5, 10) })
      const only = parseLinkHeader((await list({ per_page: 100 })).header('link'))
      assert.equal(only.get('first'), page(1, 100))
      assert.equal(only.get('last'), page(1, 100))
      assert.ok(!only.has('next') && !only.has('prev'))
    })

    it('keeps Link targets as paths whatever Host the request used', async () => {
      const res = await ctx.http('GET', page(2, 10), {
        headers: { host: 'api.example.com:8443', 'x-forwarded-proto': 'https', 'x-forwarded-prefix': '/api' },
      })
      assertPage(res, 2, 10)
      for (const target of parseLinkHeader(res.header('link')).values()) {
        assert.match(target, /^\/events\?page=\d+&per_page=10$/)
      }
    })

    it('visits every event once, in order, by following the next links', async () => {
      const seen: number[] = []
      let next: string | undefined = page(1, 8)
      for (let guard = 0; next !== undefined && guard < 20; guard++) {
        const res = await ctx.http('GET', next)
        assert.equal(res.status, 200, res.text)
        seen.push(...ids(res))
        next = parseLinkHeader(res.header('link')).get('next')
      }
      assert.deepEqual(seen, ordered)
    })

    it('answers QUERY /events with the same JSON body like GET', async () => {
      const query = await list({ page: 2, per_page: 10 }, '/events', 'QUERY')
      assertPage(query, 2, 10)
      assert.deepEqual(query.json(), (await list({ page: 2, per_page: 10 })).json())
      assert.equal(query.header('link'), (await list({ page: 2, per_page: 10 })).header('link'))
      assertPage(await list({}, '/events', 'QUERY'), 1, 20)
      assertPage(await list({ page: 2 }, '/events?per_page=5', 'QUERY'), 2, 5)
      assertProblem(await list({ per_page: 101 }, '/events', 'QUERY'), 400)
      assertProblem(await list({ page: 1 }, '/events?page=2', 'QUERY'), 400)
    })

    it('answers HEAD /events with the headers of GET and no body', async () => {
      for (const [path, body] of [
        ['/events', undefined],
        [page(2, 10), undefined],
        ['/events', { page: 3, per_page: 5 }],
      ] as const) {
        const get = await list(body, path)
        const head = await list(body, path, 'HEAD')
        assert.equal(head.status, 200)
        assert.equal(head.text, '')
        for (const name of ['content-type', 'content-length', 'etag', 'link']) {
          assert.equal(head.header(name), get.header(name), `HEAD ${path} ${name}`)
        }
      }
    })
  })

  describe(`[${target.name}] paging of an empty /events`, () => {
    const ctx = contractService(target, { location: false })

    it('answers a page past the deep-page offset with no events and total 0 (SQLite refused a NULL OFFSET: 500)', async () => {
      for (const path of [page(101, 20), page(1_000_000_000, 100)]) {
        const res = await ctx.http('GET', path)
        assert.equal(res.status, 200, `${path}: ${res.text}`)
        assert.deepEqual(res.json(), { total: 0, events: [] })
      }
    })
  })
}

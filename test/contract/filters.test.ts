// Finding events (CONTRACT.md §3): from, to, location_id and q on GET, HEAD and QUERY /events, in
// the body or the query string; alone, together and with paging; the 400s; the Link header and
// the ETag of a filtered page. One fixture, made before the tests; only the ETag test changes it,
// and only a title no other test searches for.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { before, describe, it } from 'node:test'
import {
  assertProblem,
  contractService,
  type Json,
  jsonHeaders,
  parseLinkHeader,
} from '../support/contract.ts'
import type { Response } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const at = (day: number, hour = 19) =>
  new Date(Date.UTC(2027, 2, day, hour)).toISOString().replace('.000Z', 'Z')

/** Titles that tell JavaScript's toLowerCase from SQL lower() and from LIKE's wildcards. */
const fixture = [
  { title: 'ÄRGER im Büro', date: at(1), place: 0 },
  { title: 'İstanbul night', date: at(2), place: 1 },
  { title: 'Straße fest', date: at(3), place: 2 },
  { title: '100% sure', date: at(4), place: 0 },
  { title: 'snake_case meetup', date: at(5), place: 1 },
  { title: 'back\\slash talk', date: at(6), place: 2 },
  { title: 'Jazz evening', date: at(7), place: 0 },
  { title: 'jazz brunch', date: at(7), place: 1 },
  { title: 'JAZZ late', date: at(8), place: 2 },
  { title: 'Quiet morning', date: at(9), place: 0 },
  { title: 'Etag probe', date: at(10), place: 1 },
]

const query = (params: Record<string, string | number>) =>
  `/events?${Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&')}`

for (const target of storeTargets) {
  describe(`[${target.name}] finding events: from, to, location_id, q`, () => {
    const ctx = contractService(target)
    let places: number[]
    /** The fixture's events as created, in the collection's order. */
    let events: { id: number; title: string; date: string; locationId: number }[]

    before(async () => {
      places = [ctx.locationId, await ctx.newLocation('Old Library'), await ctx.newLocation('Riverside')]
      events = []
      for (const { title, date, place } of fixture) {
        const created = await ctx.createEvent({ title, date, location_id: places[place] as number })
        events.push({ id: created.id, title, date, locationId: places[place] as number })
      }
      events.sort((a, b) => Date.parse(a.date) - Date.parse(b.date) || a.id - b.id)
    })

    const get = (path: string, body?: unknown, method = 'GET') =>
      ctx.http(method, path, body === undefined ? {} : { headers: jsonHeaders(), body })
    const titles = (res: Response): string[] => {
      assert.equal(res.status, 200, res.text)
      return res.json().events.map((e: Json) => e.title)
    }
    const titlesWhere = (keep: (e: (typeof events)[number]) => boolean) =>
      events.filter(keep).map((e) => e.title)
    /** The titles and total a filter finds, asked in the query string and in the body, which must agree. */
    async function found(
      params: Record<string, string | number>,
    ): Promise<{ total: number; titles: string[] }> {
      const fromQuery = await get(query({ per_page: 100, ...params }))
      const fromBody = await get('/events', { per_page: 100, ...params })
      assert.deepEqual(
        fromBody.json(),
        fromQuery.json(),
        `body and query string agree for ${JSON.stringify(params)}`,
      )
      return { total: fromQuery.json().total, titles: titles(fromQuery) }
    }
    async function assertFinds(params: Record<string, string | number>, expected: string[]) {
      const { total, titles } = await found(params)
      assert.deepEqual(titles, expected, JSON.stringify(params))
      assert.equal(total, expected.length, `total for ${JSON.stringify(params)}`)
    }

    it('finds events from an instant on: from is inclusive', async () => {
      await assertFinds(
        { from: at(7) },
        titlesWhere((e) => e.date >= at(7)),
      )
      await assertFinds(
        { from: at(7, 18) },
        titlesWhere((e) => e.date >= at(7)),
      )
      assert.ok((await found({ from: at(7) })).titles.includes('Jazz evening'), 'an event exactly at from')
    })

    it('finds events before an instant: to is exclusive', async () => {
      await assertFinds(
        { to: at(7) },
        titlesWhere((e) => e.date < at(7)),
      )
      assert.ok(!(await found({ to: at(7) })).titles.includes('Jazz evening'), 'an event exactly at to')
      await assertFinds({ from: at(3), to: at(5) }, ['Straße fest', '100% sure'])
    })

    it('reads offsets as instants, as for date', async () => {
      // 2027-03-07T19:00:00Z written as 20:00 at +01:00, and lower-case t and z.
      await assertFinds({ from: '2027-03-07T20:00:00+01:00', to: '2027-03-08t19:00:00z' }, [
        'Jazz evening',
        'jazz brunch',
      ])
    })

    it('finds the events at a location, and none at an unknown one', async () => {
      await assertFinds(
        { location_id: places[1] as number },
        titlesWhere((e) => e.locationId === places[1]),
      )
      await assertFinds({ location_id: 999_999 }, [])
      const unknown = await get(query({ location_id: 999_999 }))
      assert.deepEqual(unknown.json(), { total: 0, events: [] })
    })

    it('finds titles containing q, both sides lower-cased as JavaScript does', async () => {
      await assertFinds({ q: 'jazz' }, ['Jazz evening', 'jazz brunch', 'JAZZ late'])
      await assertFinds({ q: 'JaZz' }, ['Jazz evening', 'jazz brunch', 'JAZZ late'])
      await assertFinds({ q: 'z b' }, ['jazz brunch'])
      await assertFinds({ q: 'nothing like it' }, [])
    })

    it('folds non-ASCII letters as toLowerCase does, the same on every store', async () => {
      await assertFinds({ q: 'ärger' }, ['ÄRGER im Büro'])
      await assertFinds({ q: 'Ä' }, ['ÄRGER im Büro'])
      await assertFinds({ q: 'BÜRO' }, ['ÄRGER im Büro'])
      // 'İ'.toLowerCase() is 'i̇' (i and U+0307): the folded title holds no 'istanbul'.
      await assertFinds({ q: 'İstanbul' }, ['İstanbul night'])
      await assertFinds({ q: 'i\u0307stanbul' }, ['İstanbul night'])
      await assertFinds({ q: 'istanbul' }, [])
      await assertFinds({ q: 'stanbul' }, ['İstanbul night'])
      // ß folds to itself, never to ss; capital ẞ folds to ß.
      await assertFinds({ q: 'ß' }, ['Straße fest'])
      await assertFinds({ q: 'STRAẞE' }, ['Straße fest'])
      await assertFinds({ q: 'strasse' }, [])
    })

    it('takes %, _ and \\ in q literally', async () => {
      await assertFinds({ q: '%' }, ['100% sure'])
      await assertFinds({ q: '0% s' }, ['100% sure'])
      await assertFinds({ q: '_' }, ['snake_case meetup'])
      await assertFinds({ q: 'e_c' }, ['snake_case meetup'])
      await assertFinds({ q: '\\' }, ['back\\slash talk'])
      await assertFinds({ q: 'k\\s' }, ['back\\slash talk'])
      for (const q of ['a%e', 's_a', '%%', '\\%', '\\_']) await assertFinds({ q }, [])
    })

    it('combines the filters: every one must hold', async () => {
      await assertFinds({ q: 'jazz', location_id: places[1] as number }, ['jazz brunch'])
      await assertFinds({ q: 'jazz', from: at(7), to: at(8) }, ['Jazz evening', 'jazz brunch'])
      await assertFinds({ q: 'jazz', to: at(8), location_id: places[0] as number }, ['Jazz evening'])
      await assertFinds({ from: at(2), to: at(9), location_id: places[2] as number }, [
        'Straße fest',
        'back\\slash talk',
        'JAZZ late',
      ])
      await assertFinds({ q: 'jazz', from: at(9) }, [])
    })

    it('pages the events found, with the total of all of them', async () => {
      const all = titlesWhere((e) => e.date >= at(2))
      for (const [page, perPage] of [
        [1, 3],
        [2, 3],
        [4, 3],
        [5, 3],
      ] as const) {
        const res = await get(query({ from: at(2), page, per_page: perPage }))
        assert.deepEqual(titles(res), all.slice((page - 1) * perPage, page * perPage), `page ${page}`)
        assert.equal(res.json().total, all.length)
      }
      const past = await get('/events', { q: 'jazz', page: 9, per_page: 2 })
      assert.deepEqual(past.json(), { total: 3, events: [] })
    })

    it('answers QUERY and HEAD like GET', async () => {
      const body = { q: 'jazz', per_page: 2 }
      const viaGet = await get('/events', body)
      const viaQuery = await get('/events', body, 'QUERY')
      assert.deepEqual(viaQuery.json(), viaGet.json())
      assert.equal(viaQuery.header('link'), viaGet.header('link'))
      const head = await get(query(body), undefined, 'HEAD')
      const getQ = await get(query(body))
      assert.equal(head.text, '')
      for (const name of ['etag', 'link', 'content-length'])
        assert.equal(head.header(name), getQ.header(name), name)
    })

    it('keeps the filters in the Link header, in a fixed order, percent-encoded', async () => {
      const res = await get('/events', {
        q: 'a&b=c+d é',
        location_id: places[0] as number,
        to: '2027-03-20T00:00:00+01:00',
        from: '2027-03-01T00:00:00Z',
        per_page: 1,
      })
      assert.deepEqual(Object.fromEntries(parseLinkHeader(res.header('link'))), {
        first: `/events?from=2027-03-01T00:00:00Z&to=2027-03-19T23:00:00Z&location_id=${places[0]}&q=a%26b%3Dc%2Bd%20%C3%A9&page=1&per_page=1`,
        last: `/events?from=2027-03-01T00:00:00Z&to=2027-03-19T23:00:00Z&location_id=${places[0]}&q=a%26b%3Dc%2Bd%20%C3%A9&page=1&per_page=1`,
      })
    })

    it('reaches the same events by following next as in one page', async () => {
      const filters: Record<string, string | number>[] = [
        { q: 'a' },
        { from: at(2), to: at(9) },
        { location_id: places[0] as number, q: 'E' },
      ]
      for (const params of filters) {
        const expected = (await found(params)).titles
        const seen: string[] = []
        let next: string | undefined = query({ ...params, per_page: 2 })
        for (let guard = 0; next !== undefined && guard < 20; guard++) {
          const res = await get(next)
          seen.push(...titles(res))
          assert.equal(res.json().total, expected.length)
          next = parseLinkHeader(res.header('link')).get('next')
        }
        assert.deepEqual(seen, expected, JSON.stringify(params))
      }
    })

    it('answers 400 naming the parameter for bad input, in the query string', async () => {
      const cases: [string, string][] = [
        ['from=2027-02-30T00:00:00Z', 'from'],
        ['from=yesterday', 'from'],
        ['to=2027-03-01', 'to'],
        ['to=2027-03-01T00:00:00.0001Z', 'to'],
        [`from=${at(5)}&to=${at(5)}`, 'from'],
        [`from=${at(6)}&to=${at(5)}`, 'from'],
        ['q=', 'q'],
        [`q=${'x'.repeat(101)}`, 'q'],
        ['q=a&q=b', 'q'],
        ['q=%00', 'q'],
        ['location_id=0', 'location_id'],
        ['location_id=-1', 'location_id'],
        ['location_id=1.5', 'location_id'],
        ['location_id=01', 'location_id'],
        ['location_id=abc', 'location_id'],
        ['location_id=99999999999999999', 'location_id'],
        ['title=x', 'title'],
        ['from_date=2027-03-01T00:00:00Z', 'from_date'],
      ]
      for (const [text, name] of cases) {
        const res = await get(`/events?${text}`)
        assertProblem(res, 400)
        assert.ok(res.json().detail.includes(name), `?${text}: the detail names ${name}: ${res.text}`)
      }
      assert.equal((await get(`/events?q=${'x'.repeat(100)}`)).status, 200, '100 characters are fine')
      assert.equal(
        (await get(`/events?q=${encodeURIComponent('🎷'.repeat(100))}`)).status,
        200,
        'counted in characters',
      )
    })

    it('answers 400 naming the parameter for bad input, in the body', async () => {
      const pointed: [Record<string, unknown>, string][] = [
        [{ from: '2027-02-30T00:00:00Z' }, '/from'],
        [{ to: 'soon' }, '/to'],
        [{ from: 20270301 }, '/from'],
        [{ q: '' }, '/q'],
        [{ q: 'x'.repeat(101) }, '/q'],
        [{ q: 7 }, '/q'],
        [{ location_id: 0 }, '/location_id'],
        [{ location_id: 2.5 }, '/location_id'],
        [{ location_id: '3' }, '/location_id'],
        [{ location: 3 }, '/location'],
      ]
      for (const [body, pointer] of pointed) {
        for (const method of ['GET', 'QUERY']) assertProblem(await get('/events', body, method), 400, pointer)
      }
      for (const [body, path, name] of [
        [{ from: at(5), to: at(4) }, '/events', 'from'],
        [{ q: 'a' }, '/events?q=b', 'q'],
        [{ location_id: places[0] }, `/events?location_id=${places[1]}`, 'location_id'],
        [{ from: at(5) }, `/events?from=${at(6)}`, 'from'],
        [{ q: 'a\u0000' }, '/events', 'q'],
      ] as const) {
        const res = await get(path, body)
        assertProblem(res, 400)
        assert.ok(res.json().detail.includes(name), `${JSON.stringify(body)} ${path}: ${res.text}`)
      }
      // The same instant written two ways agrees.
      assert.equal(
        (await get(`/events?from=${encodeURIComponent(at(5))}`, { from: '2027-03-05T20:00:00+01:00' }))
          .status,
        200,
      )
    })

    it('gives a filtered page an ETag of its own, which changes when a matching event changes', async () => {
      const probe = events.find((e) => e.title === 'Etag probe')
      assert.ok(probe)
      const tagOf = async (body: unknown) => (await get('/events', body)).header('etag')
      const before = await tagOf({ q: 'etag probe' })
      assert.notEqual(before, await tagOf({}), 'not the unfiltered page’s tag')
      assert.notEqual(before, await tagOf({ q: 'etag prob' }), 'another filter with the same events')
      // Two filters that both find nothing must not share a tag either.
      assert.notEqual(await tagOf({ q: 'no such title' }), await tagOf({ q: 'nor this one' }))
      const stale = await get('/events', { q: 'no such title' }, 'GET')
      const other = await ctx.http('GET', '/events', {
        headers: { ...jsonHeaders(), 'if-none-match': stale.header('etag') as string },
        body: { q: 'nor this one' },
      })
      assert.equal(other.status, 200, 'an If-None-Match of another filter does not answer 304')
      const same = await ctx.http('GET', '/events', {
        headers: { ...jsonHeaders(), 'if-none-match': before as string },
        body: { q: 'etag probe' },
      })
      assert.equal(same.status, 304)
      const put = await ctx.http('PUT', `/events/${probe.id}`, {
        headers: jsonHeaders(ctx.service.editorAuth),
        body: { title: 'Etag probe (moved)', date: probe.date },
      })
      assert.equal(put.status, 200, put.text)
      assert.notEqual(await tagOf({ q: 'etag probe' }), before)
    })

    it('answers an unfiltered page with the ETag it always had', async () => {
      const res = await get('/events?page=1&per_page=5')
      const { total, events: shown } = res.json()
      const identity = JSON.stringify([
        total,
        { page: 1, perPage: 5 },
        await Promise.all(
          shown.map(async (e: Json) => [e.id, Number((await ctx.readEvent(e.id)).etag?.slice(2, -1))]),
        ),
      ])
      const expected = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`
      assert.equal(res.header('etag'), expected)
      assert.equal(
        res.header('link'),
        '</events?page=1&per_page=5>; rel="first", </events?page=2&per_page=5>; rel="next", </events?page=3&per_page=5>; rel="last"',
      )
    })
  })
}

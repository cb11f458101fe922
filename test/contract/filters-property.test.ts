// Property: for random events and random filters, GET /events answers exactly what the filter,
// applied here to the whole collection, gives (CONTRACT.md §3, "Finding events"): the same total
// and, page by page, the same events in date-then-id order. Titles and q are drawn from letters
// whose lower-casing differs between JavaScript and SQL (İ, ẞ, É) and from LIKE's wildcards.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import fc from 'fast-check'
import { contractService, type Json, jsonHeaders, locationIdOf } from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

// `"` and `*` mean something to SQLite's FTS5 query syntax, which the trigram index is asked in.
const letters = ['a', 'A', 'b', 'İ', 'i', '\u0307', 'ß', 'ẞ', 'é', 'É', '%', '_', '\\', ' ', '"', '*']
const text = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...letters), minLength, maxLength })
const day = (n: number) => Date.UTC(2027, 4, 1 + n, 12)
const iso = (millis: number) => new Date(millis).toISOString().replace('.000Z', 'Z')

interface Stored {
  readonly id: number
  readonly title: string
  readonly date: number
  readonly locationId: number
}

/** The filter as the test applies it: JavaScript's own toLowerCase and includes. */
interface Filter {
  from?: number
  to?: number
  location?: number
  q?: string
}

const matches = (f: Filter, e: Stored) =>
  (f.from === undefined || e.date >= f.from) &&
  (f.to === undefined || e.date < f.to) &&
  (f.location === undefined || e.locationId === f.location) &&
  (f.q === undefined || e.title.toLowerCase().includes(f.q.toLowerCase()))

for (const target of storeTargets) {
  describe(`[${target.name}] finding events, as a property`, () => {
    const ctx = contractService(target, { location: false })
    let stored: Stored[]
    let locations: number[]

    before(async () => {
      // Titles need something other than whitespace; a fixed seed keeps the data the same each run.
      const event = fc.record({ title: text(1, 6).map((t) => `${t}x`), day: fc.integer({ min: 0, max: 9 }) })
      const [places] = fc.sample(
        fc.array(fc.array(event, { maxLength: 25 }), { minLength: 3, maxLength: 3 }),
        {
          seed: 20_270_501,
          numRuns: 1,
        },
      )
      await ctx.service.store.importLocations(
        (places ?? []).map((events, p) => ({
          name: `Place ${p}`,
          address: `${p} Property Road`,
          events: events.map((e) => ({ title: e.title, date: day(e.day) })),
        })),
      )
      const all = await ctx.http('GET', '/events?per_page=100')
      stored = all.json().events.map((e: Json) => ({
        id: e.id,
        title: e.title,
        date: Date.parse(e.date),
        locationId: locationIdOf(e),
      }))
      locations = [...new Set(stored.map((e) => e.locationId))]
      assert.equal(stored.length, all.json().total)
    })

    it('answers the total and the pages that the filter applied to the whole collection gives', async () => {
      const instant = fc.oneof(
        fc.integer({ min: -1, max: 11 }).map(day),
        fc.integer({ min: day(-1), max: day(11) }),
      )
      const filter = fc
        .record(
          {
            from: instant,
            to: instant,
            location: fc.oneof(fc.constantFrom(...locations), fc.constant(999_999)),
            q: text(1, 4),
          },
          { requiredKeys: [] },
        )
        .filter((f) => f.from === undefined || f.to === undefined || f.from < f.to)
      const paging = fc.record({
        page: fc.integer({ min: 1, max: 4 }),
        perPage: fc.integer({ min: 1, max: 10 }),
      })
      await fc.assert(
        fc.asyncProperty(filter, paging, fc.boolean(), async (f, { page, perPage }, inBody) => {
          const params = {
            ...(f.from !== undefined && { from: iso(f.from) }),
            ...(f.to !== undefined && { to: iso(f.to) }),
            ...(f.location !== undefined && { location_id: f.location }),
            ...(f.q !== undefined && { q: f.q }),
            page,
            per_page: perPage,
          }
          const path = `/events?${Object.entries(params)
            .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
            .join('&')}`
          const res = inBody
            ? await ctx.http('GET', '/events', { headers: jsonHeaders(), body: params })
            : await ctx.http('GET', path)
          assert.equal(res.status, 200, res.text)
          const expected = stored.filter((e) => matches(f, e))
          assert.equal(res.json().total, expected.length)
          assert.deepEqual(
            res.json().events.map((e: Json) => e.id),
            expected.slice((page - 1) * perPage, page * perPage).map((e) => e.id),
          )
        }),
        { numRuns: 100 },
      )
    })
  })
}

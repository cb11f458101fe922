// POST /events and the field rules every write shares (CONTRACT.md §2 Event, §3 POST): 201 with
// Location, titles of 1–200 characters, RFC 3339 dates normalised to UTC, a known location.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  assertEvent,
  assertProblem,
  contractService,
  jsonHeaders,
  types,
  uniqueTitle,
} from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] POST /events`, () => {
    const ctx = contractService(target)

    const post = (body: unknown, contentType: string = types.json) =>
      ctx.http('POST', '/events', { headers: jsonHeaders(ctx.service.editorAuth, contentType), body })

    /** Sends each body, expects 422 naming the pointer, and checks that nothing was created. */
    async function rejects(bodies: readonly unknown[], pointer: string) {
      const before = await ctx.totalEvents()
      for (const body of bodies) {
        const res = await post(body)
        assert.equal(res.status, 422, `${JSON.stringify(body)} → ${res.status} ${res.text}`)
        assertProblem(res, 422, pointer)
      }
      assert.equal(await ctx.totalEvents(), before, 'a rejected POST creates nothing')
    }

    it('answers 201 with Location, the event type and the new event, which GET then returns', async () => {
      const res = await post({
        title: 'Release party',
        date: '2026-12-04T19:30:00Z',
        location_id: ctx.locationId,
      })
      assert.equal(res.status, 201)
      assert.equal(res.header('content-type'), types.event)
      const body = res.json()
      assertEvent(body, { title: 'Release party', date: '2026-12-04T19:30:00Z', locationId: ctx.locationId })
      assert.equal(res.header('location'), `/events/${body.id}`)
      const read = await ctx.http('GET', res.header('location') as string)
      assert.equal(read.status, 200)
      assert.deepEqual(read.json(), body)
    })

    it('takes the event media type as the request body type as well as application/json', async () => {
      const res = await post(ctx.newEventBody(), types.event)
      assert.equal(res.status, 201, res.text)
      const withCharset = await post(ctx.newEventBody(), 'application/json; charset=utf-8')
      assert.equal(withCharset.status, 201, withCharset.text)
    })

    it('gives a Location that is a path whatever Host the request used', async () => {
      const res = await ctx.http('POST', '/events', {
        headers: {
          ...jsonHeaders(ctx.service.editorAuth),
          host: 'api.example.com:8443',
          'x-forwarded-proto': 'https',
        },
        body: ctx.newEventBody(),
      })
      assert.equal(res.status, 201)
      assert.equal(res.header('location'), `/events/${res.json().id}`)
      assertEvent(res.json(), { locationId: ctx.locationId })
    })

    it('adds the event to the collection', async () => {
      const before = await ctx.totalEvents()
      await ctx.createEvent()
      assert.equal(await ctx.totalEvents(), before + 1)
    })

    it('assigns positive ids that are never reused, even after a delete', async () => {
      const first = await ctx.createEvent()
      const second = await ctx.createEvent()
      assert.ok(second.id > first.id)
      const deleted = await ctx.http('DELETE', `/events/${second.id}`, {
        headers: { authorization: ctx.service.editorAuth },
      })
      assert.equal(deleted.status, 204)
      const third = await ctx.createEvent()
      assert.ok(third.id > second.id, `id ${third.id} must not reuse the deleted ${second.id}`)
    })

    it('rejects a missing or unknown location_id with 422 /location_id and creates nothing', async () => {
      await rejects(
        [
          { title: uniqueTitle(), date: '2026-12-04T19:30:00Z' },
          { title: uniqueTitle(), date: '2026-12-04T19:30:00Z', location_id: 987654 },
          { title: uniqueTitle(), date: '2026-12-04T19:30:00Z', location_id: 0 },
          { title: uniqueTitle(), date: '2026-12-04T19:30:00Z', location_id: -1 },
          { title: uniqueTitle(), date: '2026-12-04T19:30:00Z', location_id: 1.5 },
          { title: uniqueTitle(), date: '2026-12-04T19:30:00Z', location_id: String(ctx.locationId) },
          { title: uniqueTitle(), date: '2026-12-04T19:30:00Z', location_id: null },
        ],
        '/location_id',
      )
    })

    it('rejects a missing title or date with 422 naming the field', async () => {
      await rejects([{ date: '2026-12-04T19:30:00Z', location_id: ctx.locationId }], '/title')
      await rejects([{ title: uniqueTitle(), location_id: ctx.locationId }], '/date')
    })

    it('rejects unknown fields, including a client-chosen id, with 422', async () => {
      await rejects([ctx.newEventBody({ colour: 'red' })], '/colour')
      await rejects([ctx.newEventBody({ id: 424242 })], '/id')
      const res = await ctx.http('GET', '/events/424242')
      assert.equal(res.status, 404)
    })

    it('accepts titles of 1 to 200 characters, counting Unicode characters, and returns them exactly', async () => {
      for (const title of [
        'a',
        'x'.repeat(200),
        'é'.repeat(200),
        '😀'.repeat(200),
        '<b>"Quotes" & ünïcödé</b> \\ / \u2028',
        "Robert'); DROP TABLE events;--",
        '  padded  ',
      ]) {
        const res = await post({ title, date: '2026-12-04T19:30:00Z', location_id: ctx.locationId })
        assert.equal(
          res.status,
          201,
          `${JSON.stringify(title)} (${[...title].length} characters): ${res.text}`,
        )
        assert.equal(res.json().title, title)
        const read = await ctx.http('GET', `/events/${res.json().id}`)
        assert.equal(read.json().title, title)
      }
    })

    it('rejects empty, whitespace-only and over-long titles with 422 /title', async () => {
      const date = '2026-12-04T19:30:00Z'
      await rejects(
        [
          '',
          ' ',
          '   \t\n  ',
          '\u00a0\u2003',
          'x'.repeat(201),
          'é'.repeat(201),
          '😀'.repeat(201),
          42,
          null,
          ['x'],
          {},
        ].map((title) => ({ title, date, location_id: ctx.locationId })),
        '/title',
      )
    })

    it('normalises dates to UTC with a trailing Z, showing milliseconds only when not zero', async () => {
      const cases: [string, string][] = [
        ['2026-12-04T19:30:00Z', '2026-12-04T19:30:00Z'],
        ['2026-12-04T21:30:00+02:00', '2026-12-04T19:30:00Z'],
        ['2026-12-04T14:00:00-05:30', '2026-12-04T19:30:00Z'],
        ['2026-12-31T23:30:00-01:00', '2027-01-01T00:30:00Z'],
        ['2026-12-04T19:30:00+00:00', '2026-12-04T19:30:00Z'],
        ['2026-12-04T19:30:00.000Z', '2026-12-04T19:30:00Z'],
        ['2026-12-04T19:30:00.120Z', '2026-12-04T19:30:00.120Z'],
        ['2026-12-04T19:30:00.5Z', '2026-12-04T19:30:00.500Z'],
        ['2026-12-04T20:30:00.007+01:00', '2026-12-04T19:30:00.007Z'],
        ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00Z'],
      ]
      for (const [input, output] of cases) {
        const res = await post(ctx.newEventBody({ date: input }))
        assert.equal(res.status, 201, `${input}: ${res.text}`)
        assert.equal(res.json().date, output, `${input} is returned as ${output}`)
        const read = await ctx.http('GET', `/events/${res.json().id}`)
        assert.equal(read.json().date, output, `${input} is stored as ${output}`)
      }
    })

    it('rejects impossible dates, sub-millisecond precision and non-RFC 3339 text with 422 /date', async () => {
      await rejects(
        [
          '2026-02-30T00:00:00Z',
          '2025-02-29T00:00:00Z',
          '2026-04-31T10:00:00Z',
          '2026-13-01T00:00:00Z',
          '2026-00-10T00:00:00Z',
          '2026-12-04T24:00:00Z',
          '2026-12-04T19:60:00Z',
          '2026-12-04T19:30:61Z',
          '2026-12-04T19:30:00+24:00',
          '2026-12-04T19:30:00.1234Z',
          '2026-12-04T19:30:00.000001Z',
          '2026-12-04T19:30:00',
          '2026-12-04',
          'next Tuesday',
          '',
          1796499000000,
          null,
        ].map((date) => ctx.newEventBody({ date })),
        '/date',
      )
    })
  })
}

// PUT, PATCH and DELETE of /events/<id> (seed §4 #3, #6 and rule 3; CONTRACT.md §3): what changes,
// what stays, and that a refused write leaves the event exactly as it was.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  assertEvent,
  assertProblem,
  contractService,
  expectedEventLinks,
  type Json,
  jsonHeaders,
  types,
} from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] changing and deleting events`, () => {
    const ctx = contractService(target)

    const put = (id: number | string, body: unknown, contentType: string = types.json) =>
      ctx.http('PUT', `/events/${id}`, { headers: jsonHeaders(ctx.service.editorAuth, contentType), body })
    const patch = (id: number | string, body: unknown, contentType: string = types.mergePatch) =>
      ctx.http('PATCH', `/events/${id}`, { headers: jsonHeaders(ctx.service.editorAuth, contentType), body })
    const fixture = () => ctx.createEvent({ title: 'Before', date: '2026-12-04T19:30:00Z' })

    /** The event reads back exactly as `expected`. */
    async function unchanged(expected: Json) {
      const { event } = await ctx.readEvent(expected.id)
      assert.deepEqual(event, expected, 'a refused write changes nothing')
    }

    describe('PUT /events/<id>', () => {
      it('replaces title and date, keeps id and links, and a later GET shows the change', async () => {
        const event = await fixture()
        const res = await put(event.id, { title: 'After', date: '2027-01-02T03:04:05Z' })
        assert.equal(res.status, 200, res.text)
        assert.equal(res.header('content-type'), types.event)
        const body = res.json()
        assertEvent(body, {
          id: event.id,
          title: 'After',
          date: '2027-01-02T03:04:05Z',
          locationId: ctx.locationId,
        })
        assert.deepEqual(body.links, event.links)
        const { event: read } = await ctx.readEvent(event.id)
        assert.deepEqual(read, body)
      })

      it('takes the event media type as body type and normalises the date', async () => {
        const event = await fixture()
        const res = await put(
          event.id,
          { title: 'Offset', date: '2027-01-02T05:04:05.250+02:00' },
          types.event,
        )
        assert.equal(res.status, 200, res.text)
        assert.equal(res.json().date, '2027-01-02T03:04:05.250Z')
      })

      it('accepts the whole representation back (GET, edit, PUT), ignoring the links it carries', async () => {
        const event = await fixture()
        const { event: read } = await ctx.readEvent(event.id)
        const edited = { ...read, title: 'Edited in place' }
        const res = await put(event.id, edited)
        assert.equal(res.status, 200, res.text)
        assert.deepEqual(res.json(), { ...read, title: 'Edited in place' })
        const odd = await put(event.id, {
          links: [{ uri: '/locations/987654', rel: '/rel/location', type: 'text/plain' }, 'junk'],
          id: event.id,
          title: 'Links ignored',
          date: read.date,
        })
        assert.equal(odd.status, 200, odd.text)
        assert.deepEqual(odd.json().links, expectedEventLinks(event.id, ctx.locationId))
      })

      it('refuses an id that differs from the path with 422 /id and changes nothing', async () => {
        const event = await fixture()
        const other = await fixture()
        for (const id of [other.id, event.id + 1000, String(event.id), 0]) {
          const res = await put(event.id, { id, title: 'Hijack', date: '2027-01-01T00:00:00Z' })
          assertProblem(res, 422, '/id')
        }
        await unchanged(event)
        await unchanged(other)
      })

      it('refuses unknown fields, location_id included, with 422 and changes nothing', async () => {
        const event = await fixture()
        const base = { title: 'Nope', date: '2027-01-01T00:00:00Z' }
        assertProblem(await put(event.id, { ...base, colour: 'red' }), 422, '/colour')
        assertProblem(await put(event.id, { ...base, location_id: ctx.locationId }), 422, '/location_id')
        await unchanged(event)
      })

      it('refuses a body missing title or date with 422 naming the field and changes nothing', async () => {
        const event = await fixture()
        assertProblem(await put(event.id, { title: 'Only a title' }), 422, '/date')
        assertProblem(await put(event.id, { date: '2027-01-01T00:00:00Z' }), 422, '/title')
        assertProblem(await put(event.id, {}), 422)
        await unchanged(event)
      })

      it('refuses invalid titles and dates with 422 and changes nothing', async () => {
        const event = await fixture()
        assertProblem(await put(event.id, { title: ' ', date: '2027-01-01T00:00:00Z' }), 422, '/title')
        assertProblem(
          await put(event.id, { title: 'x'.repeat(201), date: '2027-01-01T00:00:00Z' }),
          422,
          '/title',
        )
        assertProblem(await put(event.id, { title: 'Fine', date: '2026-02-30T00:00:00Z' }), 422, '/date')
        assertProblem(await put(event.id, { title: 'Fine', date: '2026-12-04T19:30:00.0001Z' }), 422, '/date')
        await unchanged(event)
      })

      it('never creates: an unknown id is 404 and stays absent', async () => {
        const before = await ctx.totalEvents()
        const res = await put(987654, { title: 'Ghost', date: '2027-01-01T00:00:00Z' })
        assertProblem(res, 404)
        const withId = await put(987654, { id: 987654, title: 'Ghost', date: '2027-01-01T00:00:00Z' })
        assertProblem(withId, 404)
        assertProblem(await ctx.http('GET', '/events/987654'), 404)
        assert.equal(await ctx.totalEvents(), before)
      })
    })

    describe('PATCH /events/<id> (application/merge-patch+json)', () => {
      it('changes only the title', async () => {
        const event = await fixture()
        const res = await patch(event.id, { title: 'Patched title' })
        assert.equal(res.status, 200, res.text)
        assert.equal(res.header('content-type'), types.event)
        assertEvent(res.json(), {
          id: event.id,
          title: 'Patched title',
          date: event.date,
          locationId: ctx.locationId,
        })
        assert.deepEqual((await ctx.readEvent(event.id)).event, res.json())
      })

      it('changes only the date, normalised to UTC', async () => {
        const event = await fixture()
        const res = await patch(event.id, { date: '2027-03-01T09:00:00-03:00' })
        assert.equal(res.status, 200, res.text)
        assertEvent(res.json(), {
          id: event.id,
          title: 'Before',
          date: '2027-03-01T12:00:00Z',
          locationId: ctx.locationId,
        })
        assert.deepEqual((await ctx.readEvent(event.id)).event, res.json())
      })

      it('moves the event to another location, which its location link then names', async () => {
        const event = await fixture()
        const other = await ctx.newLocation('Riverside Pavilion', '12 Quay Street')
        const res = await patch(event.id, { location_id: other })
        assert.equal(res.status, 200, res.text)
        assertEvent(res.json(), { id: event.id, title: 'Before', date: event.date, locationId: other })
        assert.deepEqual((await ctx.readEvent(event.id)).event.links, expectedEventLinks(event.id, other))
      })

      it('changes several fields at once; an empty patch changes nothing', async () => {
        const event = await fixture()
        const res = await patch(event.id, { title: 'Both', date: '2028-05-06T07:08:09.010Z' })
        assert.equal(res.status, 200, res.text)
        assertEvent(res.json(), {
          id: event.id,
          title: 'Both',
          date: '2028-05-06T07:08:09.010Z',
          locationId: ctx.locationId,
        })
        const empty = await patch(event.id, {})
        assert.equal(empty.status, 200, empty.text)
        assert.deepEqual(empty.json(), res.json())
      })

      it('refuses an unknown location, null for a required field, invalid values and unknown fields with 422', async () => {
        const event = await fixture()
        assertProblem(await patch(event.id, { location_id: 987654 }), 422, '/location_id')
        assertProblem(await patch(event.id, { title: null }), 422, '/title')
        assertProblem(await patch(event.id, { date: null }), 422, '/date')
        assertProblem(await patch(event.id, { title: '' }), 422, '/title')
        assertProblem(await patch(event.id, { date: '2026-02-30T00:00:00Z' }), 422, '/date')
        assertProblem(await patch(event.id, { colour: 'red' }), 422, '/colour')
        assertProblem(
          await patch(event.id, { title: 'Partly good', location_id: 987654 }),
          422,
          '/location_id',
        )
        await unchanged(event)
      })

      it('refuses application/json with 415 and Accept-Patch, changing nothing', async () => {
        const event = await fixture()
        const res = await patch(event.id, { title: 'Wrong type' }, types.json)
        assertProblem(res, 415)
        assert.ok(
          (res.header('accept-patch') ?? '').toLowerCase().includes(types.mergePatch),
          `Accept-Patch names merge patch: ${res.header('accept-patch')}`,
        )
        await unchanged(event)
      })

      it('answers 404 for an unknown event', async () => {
        assertProblem(await patch(987654, { title: 'Ghost' }), 404)
        assertProblem(await ctx.http('GET', '/events/987654'), 404)
      })
    })

    describe('DELETE /events/<id>', () => {
      it('answers 204 without a body; afterwards GET is 404 and the event is not listed', async () => {
        const event = await fixture()
        const before = await ctx.totalEvents()
        const res = await ctx.http('DELETE', `/events/${event.id}`, {
          headers: { authorization: ctx.service.editorAuth },
        })
        assert.equal(res.status, 204)
        assert.equal(res.text, '')
        assertProblem(await ctx.http('GET', `/events/${event.id}`), 404)
        assert.equal(await ctx.totalEvents(), before - 1)
        const list = await ctx.http('GET', '/events', { headers: jsonHeaders(), body: { per_page: 100 } })
        assert.ok(!list.json().events.some((e: { id: number }) => e.id === event.id))
      })

      it('answers 404 for an event that does not exist or is already deleted', async () => {
        const event = await fixture()
        const auth = { authorization: ctx.service.editorAuth }
        assert.equal((await ctx.http('DELETE', `/events/${event.id}`, { headers: auth })).status, 204)
        assertProblem(await ctx.http('DELETE', `/events/${event.id}`, { headers: auth }), 404)
        assertProblem(await ctx.http('DELETE', '/events/987654', { headers: auth }), 404)
      })

      it('leaves other events alone', async () => {
        const keep = await fixture()
        const drop = await fixture()
        const res = await ctx.http('DELETE', `/events/${drop.id}`, {
          headers: { authorization: ctx.service.editorAuth },
        })
        assert.equal(res.status, 204)
        await unchanged(keep)
      })
    })
  })
}

// Answers a new user tripped over (issue 31, "rough edges"): each says in words what to do instead.
// A PUT that tries to move an event names PATCH; readiness lists each dependency once, flat; a
// date whose '+' became a space in the query string says so.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { assertProblem, contractService, jsonHeaders } from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] answers that say what to do`, () => {
    const ctx = contractService(target)

    describe('PUT /events/:id with location_id', () => {
      it('is 422 pointing at /location_id, and the detail says that PUT replaces title and date and PATCH moves the event', async () => {
        const { id } = await ctx.createEvent({ title: 'Stays put' })
        const elsewhere = await ctx.newLocation('Elsewhere', '2 Other Road')
        const res = await ctx.http('PUT', `/events/${id}`, {
          headers: jsonHeaders(ctx.service.editorAuth),
          body: { title: 'Moved?', date: '2027-01-01T00:00:00Z', location_id: elsewhere },
        })
        assertProblem(res, 422, '/location_id')
        const error = res.json().errors.find((e: { pointer: string }) => e.pointer === '/location_id')
        assert.match(error.detail, /PUT.*replaces the title and the date/)
        assert.match(error.detail, /PATCH.*\{"location_id": <id>\}.*application\/merge-patch\+json/)
        assert.doesNotMatch(error.detail, /additional properties/)
        assert.ok(res.json().detail.includes(error.detail), `the detail says it too: ${res.text}`)
        const after = await ctx.http('GET', `/events/${id}`)
        assert.equal(after.json().title, 'Stays put', 'nothing was written')
      })

      it('keeps the plain words for other unknown members, and for location_id where it is no mistake of that kind', async () => {
        const { id } = await ctx.createEvent()
        const res = await ctx.http('PUT', `/events/${id}`, {
          headers: jsonHeaders(ctx.service.editorAuth),
          body: { title: 'x', date: '2027-01-01T00:00:00Z', colour: 'red', constructor: 1 },
        })
        assertProblem(res, 422, '/colour')
        for (const error of res.json().errors)
          assert.match(error.detail, /must NOT have additional properties/)
        const location = await ctx.http('PUT', `/locations/${ctx.locationId}`, {
          headers: jsonHeaders(ctx.service.editorAuth),
          body: { name: 'Town Hall', address: '1 Market Square', location_id: 1 },
        })
        assertProblem(location, 422, '/location_id')
        assert.doesNotMatch(location.text, /PATCH/)
      })
    })

    describe('GET /health/ready', () => {
      it('lists each dependency once, flat: {"status":"ready","checks":{"database":"up"}}', async () => {
        const res = await ctx.http('GET', '/health/ready')
        assert.equal(res.status, 200, res.text)
        assert.deepEqual(res.json(), { status: 'ready', checks: { database: 'up' } })
        assert.equal(res.header('cache-control'), 'no-store')
      })
    })

    describe("a date whose '+' was sent unencoded in the query string", () => {
      it("is 400 saying that the '+' became a space and how to write it (%2B)", async () => {
        for (const name of ['from', 'to']) {
          const res = await ctx.http('GET', `/events?${name}=2026-12-01T00:00:00+01:00`)
          assertProblem(res, 400)
          const detail: string = res.json().detail
          assert.match(detail, new RegExp(`^${name} `), detail)
          assert.match(detail, /'\+' was sent unencoded in the query string/, detail)
          assert.match(detail, /%2B/, detail)
        }
      })

      it('finds events when the + is written as %2B, and keeps the plain words for other bad dates', async () => {
        const encoded = await ctx.http('GET', '/events?from=2026-12-01T00:00:00%2B01:00')
        assert.equal(encoded.status, 200, encoded.text)
        const other = await ctx.http('GET', '/events?from=yesterday')
        assertProblem(other, 400)
        assert.match(other.json().detail, /RFC 3339 date-time/)
        assert.doesNotMatch(other.json().detail, /%2B/)
      })
    })
  })
}

// Conditional requests (CONTRACT.md §3; RFC 9110 §13): ETags on events, locations and collection
// pages, 304 for If-None-Match, 412 for a stale If-Match, and exactly one winner among writers
// racing with the same If-Match. Every combination of the two fields on every method is in
// preconditions.test.ts; these are the stories.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  assertEvent,
  assertProblem,
  contractService,
  type Json,
  jsonHeaders,
  types,
} from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

/** RFC 9110 §8.8.3 entity-tag syntax. */
const entityTag = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/

for (const target of storeTargets) {
  describe(`[${target.name}] conditional requests`, () => {
    const ctx = contractService(target)

    const fixture = () => ctx.createEvent({ title: 'Original', date: '2026-12-04T19:30:00Z' })
    const write = (method: string, id: number, ifMatch: string | undefined, body?: unknown) =>
      ctx.http(method, `/events/${id}`, {
        headers: {
          authorization: ctx.service.editorAuth,
          ...(body !== undefined && { 'content-type': method === 'PATCH' ? types.mergePatch : types.json }),
          ...(ifMatch !== undefined && { 'if-match': ifMatch }),
        },
        ...(body !== undefined && { body }),
      })

    describe('If-None-Match', () => {
      it('an event carries a strong ETag; sending it back gives 304 without a body', async () => {
        const event = await fixture()
        const first = await ctx.http('GET', `/events/${event.id}`)
        const etag = first.header('etag')
        assert.ok(etag, 'GET of an event has an ETag')
        assert.match(etag, entityTag)
        // If-Match compares strongly (RFC 9110 §13.1.1): a weak tag could never satisfy it.
        assert.ok(!etag.startsWith('W/'), 'the ETag is strong, so it can be used with If-Match')
        const again = await ctx.http('GET', `/events/${event.id}`, { headers: { 'if-none-match': etag } })
        assert.equal(again.status, 304)
        assert.equal(again.text, '')
        assert.equal(again.header('etag'), etag, 'a 304 repeats the ETag')
      })

      it('matches weakly, in a list and with *', async () => {
        const event = await fixture()
        const { etag } = await ctx.readEvent(event.id)
        for (const field of [`W/${etag}`, `"nope", ${etag}`, '*']) {
          const res = await ctx.http('GET', `/events/${event.id}`, { headers: { 'if-none-match': field } })
          assert.equal(res.status, 304, `If-None-Match: ${field}`)
        }
        const head = await ctx.http('HEAD', `/events/${event.id}`, {
          headers: { 'if-none-match': etag as string },
        })
        assert.equal(head.status, 304)
      })

      it('answers 200 with the body for another tag, and after a change for the old tag', async () => {
        const event = await fixture()
        const { etag } = await ctx.readEvent(event.id)
        const other = await ctx.http('GET', `/events/${event.id}`, {
          headers: { 'if-none-match': '"something-else"' },
        })
        assert.equal(other.status, 200)
        assert.deepEqual(other.json(), event)
        const changed = await write('PATCH', event.id, undefined, { title: 'Changed' })
        assert.equal(changed.status, 200)
        const res = await ctx.http('GET', `/events/${event.id}`, {
          headers: { 'if-none-match': etag as string },
        })
        assert.equal(res.status, 200)
        assert.equal(res.json().title, 'Changed')
        assert.notEqual(res.header('etag'), etag, 'a change gives a new ETag')
      })

      it('a location carries an ETag and answers 304 to it', async () => {
        const res = await ctx.http('GET', `/locations/${ctx.locationId}`)
        const etag = res.header('etag')
        assert.ok(etag, 'GET of a location has an ETag')
        assert.match(etag, entityTag)
        const again = await ctx.http('GET', `/locations/${ctx.locationId}`, {
          headers: { 'if-none-match': etag },
        })
        assert.equal(again.status, 304)
        assert.equal(again.header('etag'), etag)
        const head = await ctx.http('HEAD', `/locations/${ctx.locationId}`, {
          headers: { 'if-none-match': etag },
        })
        assert.equal(head.status, 304)
      })

      it('a collection page carries an ETag that answers 304 until an event on it changes', async () => {
        // The three earliest events, so that page 1 of 3 and page 1 of 2 differ in content.
        const event = await ctx.createEvent({
          title: 'Earliest',
          date: '1970-01-01T00:00:00Z',
        })
        for (const date of ['1970-01-01T00:00:01Z', '1970-01-01T00:00:02Z']) {
          await ctx.createEvent({ date })
        }
        const query = { page: 1, per_page: 3 }
        const first = await ctx.http('GET', '/events', { headers: jsonHeaders(), body: query })
        assert.equal(first.status, 200)
        assert.equal(first.json().events[0].id, event.id)
        const etag = first.header('etag')
        assert.ok(etag, 'a collection page has an ETag')
        assert.match(etag, entityTag)
        const again = await ctx.http('GET', '/events', {
          headers: { ...jsonHeaders(), 'if-none-match': etag },
          body: query,
        })
        assert.equal(again.status, 304)
        assert.equal(again.text, '')
        const viaQuery = await ctx.http('GET', '/events?page=1&per_page=3', {
          headers: { 'if-none-match': etag },
        })
        assert.equal(viaQuery.status, 304, 'the same page asked for in the query string has the same ETag')
        const otherPage = await ctx.http('GET', '/events?page=1&per_page=2', {
          headers: { 'if-none-match': etag },
        })
        assert.equal(otherPage.status, 200, 'another page has another ETag')

        assert.equal((await write('PATCH', event.id, undefined, { title: 'Earliest, renamed' })).status, 200)
        const after = await ctx.http('GET', '/events', {
          headers: { ...jsonHeaders(), 'if-none-match': etag },
          body: query,
        })
        assert.equal(after.status, 200, 'a change to an event on the page changes its ETag')
        assert.equal(after.json().events[0].title, 'Earliest, renamed')
        assert.notEqual(after.header('etag'), etag)
      })
    })

    describe('If-Match', () => {
      it('PUT with the current ETag answers 200 with the new ETag', async () => {
        const event = await fixture()
        const { etag } = await ctx.readEvent(event.id)
        const res = await write('PUT', event.id, etag, { title: 'Matched', date: '2027-01-01T00:00:00Z' })
        assert.equal(res.status, 200, res.text)
        assertEvent(res.json(), {
          id: event.id,
          title: 'Matched',
          date: '2027-01-01T00:00:00Z',
          locationId: ctx.locationId,
        })
        const now = await ctx.readEvent(event.id)
        assert.equal(now.event.title, 'Matched')
        assert.notEqual(now.etag, etag)
        assert.equal(res.header('etag'), now.etag, 'the PUT response carries the ETag of the new state')
      })

      it('PUT, PATCH and DELETE with a stale ETag answer 412 and change nothing', async () => {
        const event = await fixture()
        const { etag: stale } = await ctx.readEvent(event.id)
        assert.equal((await write('PATCH', event.id, stale, { title: 'Second' })).status, 200)
        const current = await ctx.readEvent(event.id)

        assertProblem(
          await write('PUT', event.id, stale, { title: 'Lost', date: '2027-01-01T00:00:00Z' }),
          412,
        )
        assertProblem(await write('PATCH', event.id, stale, { title: 'Lost' }), 412)
        assertProblem(await write('DELETE', event.id, stale), 412)

        const after = await ctx.readEvent(event.id)
        assert.deepEqual(after.event, current.event, 'nothing changed')
        assert.equal(after.event.title, 'Second')
        assert.equal(after.etag, current.etag, 'the ETag did not move')
      })

      it('PATCH and DELETE with the current ETag succeed', async () => {
        const event = await fixture()
        const { etag } = await ctx.readEvent(event.id)
        const patched = await write('PATCH', event.id, etag, { title: 'Patched' })
        assert.equal(patched.status, 200, patched.text)
        const { etag: next } = await ctx.readEvent(event.id)
        const deleted = await write('DELETE', event.id, next)
        assert.equal(deleted.status, 204, deleted.text)
        assertProblem(await ctx.http('GET', `/events/${event.id}`), 404)
      })

      it('compares strongly: a weak tag never matches; a list with the current tag and * do', async () => {
        const event = await fixture()
        const { etag } = await ctx.readEvent(event.id)
        assertProblem(await write('PATCH', event.id, `W/${etag}`, { title: 'Weak' }), 412)
        assertProblem(await write('PATCH', event.id, '"not-a-tag-of-ours"', { title: 'Unknown' }), 412)
        assert.equal((await ctx.readEvent(event.id)).event.title, 'Original')
        const listed = await write('PATCH', event.id, `"not-a-tag-of-ours", ${etag}`, { title: 'Listed' })
        assert.equal(listed.status, 200, listed.text)
        const star = await write('PATCH', event.id, '*', { title: 'Star' })
        assert.equal(star.status, 200, star.text)
        assert.equal((await ctx.readEvent(event.id)).event.title, 'Star')
      })

      it('lets exactly one of ten concurrent PUTs with the same If-Match win; the rest get 412', async () => {
        const event = await fixture()
        const { etag } = await ctx.readEvent(event.id)
        const titles = Array.from({ length: 10 }, (_, i) => `Racer ${i}`)
        const results = await Promise.all(
          titles.map((title) => write('PUT', event.id, etag, { title, date: '2027-06-01T12:00:00Z' })),
        )
        const statuses = results.map((r) => r.status).sort()
        assert.deepEqual(statuses, [200, ...Array(9).fill(412)], `statuses: ${statuses.join(', ')}`)
        for (const res of results) if (res.status === 412) assertProblem(res, 412)
        const winner = results.find((r) => r.status === 200)?.json() as Json
        const now = await ctx.readEvent(event.id)
        assert.deepEqual(now.event, winner, 'the stored event is the winner’s')
        assert.ok(titles.includes(now.event.title))
      })

      it('lets exactly one of ten concurrent PATCHes with the same If-Match win', async () => {
        const event = await fixture()
        const { etag } = await ctx.readEvent(event.id)
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => write('PATCH', event.id, etag, { title: `Patcher ${i}` })),
        )
        const statuses = results.map((r) => r.status).sort()
        assert.deepEqual(statuses, [200, ...Array(9).fill(412)], `statuses: ${statuses.join(', ')}`)
        const winner = results.find((r) => r.status === 200)?.json() as Json
        assert.deepEqual((await ctx.readEvent(event.id)).event, winner)
      })
    })

    describe('If-None-Match on writes and If-Match on reads (RFC 9110 §13.2.2)', () => {
      it('PUT with If-None-Match: * answers 412 on an existing event and writes nothing', async () => {
        const event = await fixture()
        const res = await write('PUT', event.id, undefined, { title: 'Lost', date: '2027-01-01T00:00:00Z' })
        assert.equal(res.status, 200, 'without the field the same PUT succeeds')
        const { event: current, etag } = await ctx.readEvent(event.id)
        const refused = await ctx.http('PUT', `/events/${event.id}`, {
          headers: { ...jsonHeaders(ctx.service.editorAuth), 'if-none-match': '*' },
          body: { title: 'Never', date: '2027-01-01T00:00:00Z' },
        })
        assertProblem(refused, 412)
        const after = await ctx.readEvent(event.id)
        assert.deepEqual(after.event, current)
        assert.equal(after.etag, etag)
      })

      it('PUT, PATCH and DELETE with If-None-Match naming the current ETag answer 412 and change nothing', async () => {
        const event = await fixture()
        const { etag } = await ctx.readEvent(event.id)
        for (const [method, body, contentType] of [
          ['PUT', { title: 'Never', date: '2027-01-01T00:00:00Z' }, types.json],
          ['PATCH', { title: 'Never' }, types.mergePatch],
          ['DELETE', undefined, undefined],
        ] as const) {
          const res = await ctx.http(method, `/events/${event.id}`, {
            headers: {
              authorization: ctx.service.editorAuth,
              'if-none-match': `W/${etag}`,
              ...(contentType && { 'content-type': contentType }),
            },
            ...(body && { body }),
          })
          assertProblem(res, 412)
        }
        assert.deepEqual((await ctx.readEvent(event.id)).event, event)
      })

      it('PATCH with If-None-Match naming a stale ETag succeeds', async () => {
        const event = await fixture()
        const { etag: stale } = await ctx.readEvent(event.id)
        assert.equal((await write('PATCH', event.id, undefined, { title: 'Second' })).status, 200)
        const res = await ctx.http('PATCH', `/events/${event.id}`, {
          headers: {
            ...jsonHeaders(ctx.service.editorAuth, types.mergePatch),
            'if-none-match': stale as string,
          },
          body: { title: 'Third' },
        })
        assert.equal(res.status, 200, res.text)
        assert.equal((await ctx.readEvent(event.id)).event.title, 'Third')
      })

      it('GET of an event, a location and a page answer 412 to an If-Match that does not match', async () => {
        const event = await fixture()
        for (const path of [`/events/${event.id}`, `/locations/${ctx.locationId}`, '/events?per_page=3']) {
          const res = await ctx.http('GET', path, { headers: { 'if-match': '"not-the-current-tag"' } })
          assertProblem(res, 412)
          assert.equal(res.header('etag'), undefined, 'a 412 describes no representation')
          const etag = (await ctx.http('GET', path)).header('etag') as string
          const matched = await ctx.http('GET', path, { headers: { 'if-match': etag } })
          assert.equal(matched.status, 200, `${path}: the current tag matches`)
        }
      })

      it('a GET whose If-Match fails answers 412 even when If-None-Match would answer 304 (If-Match first)', async () => {
        const event = await fixture()
        const { etag } = await ctx.readEvent(event.id)
        const res = await ctx.http('GET', `/events/${event.id}`, {
          headers: { 'if-match': `W/${etag}`, 'if-none-match': etag as string },
        })
        assertProblem(res, 412)
      })

      it('ignores the preconditions of a request for a missing event: 404 (RFC 9110 §13.2.1)', async () => {
        const event = await fixture()
        const { etag } = await ctx.readEvent(event.id)
        assert.equal((await write('DELETE', event.id, etag)).status, 204)
        for (const field of ['*', etag as string]) {
          assertProblem(
            await write('PUT', event.id, field, { title: 'X', date: '2027-01-01T00:00:00Z' }),
            404,
          )
          assertProblem(
            await ctx.http('GET', `/events/${event.id}`, { headers: { 'if-none-match': field } }),
            404,
          )
        }
      })

      it('POST /events answers 412 to If-None-Match: * (the collection exists) and creates nothing', async () => {
        const before = await ctx.totalEvents()
        const res = await ctx.http('POST', '/events', {
          headers: { ...jsonHeaders(ctx.service.editorAuth), 'if-none-match': '*' },
          body: ctx.newEventBody(),
        })
        assertProblem(res, 412)
        assert.equal(await ctx.totalEvents(), before)
        const star = await ctx.http('POST', '/events', {
          headers: { ...jsonHeaders(ctx.service.editorAuth), 'if-match': '*' },
          body: ctx.newEventBody(),
        })
        assert.equal(star.status, 201, star.text)
      })
    })
  })
}

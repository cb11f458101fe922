// The HTML view, read as a person reads it (issue 31), on every store: a list names each event's
// location (read in one call for the page's ids), dates are words with the instant in
// <time datetime>, and the edit form can move the event (a select of locations, sent as a merge patch).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { contractService } from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

const browser = { accept: 'text/html' }

for (const target of storeTargets) {
  describe(`[${target.name}] HTML views read as words`, () => {
    const ctx = contractService(target)

    it("names each listed event's location, and writes its date in words with the instant in <time datetime>", async () => {
      const mill = await ctx.newLocation('Old Mill', '5 Weir Lane')
      const quay = await ctx.newLocation('Quay Hall', '1 Quay')
      await ctx.createEvent({ title: 'Words at the mill', location_id: mill, date: '2026-12-04T19:30:00Z' })
      await ctx.createEvent({
        title: 'Words at the quay',
        location_id: quay,
        date: '2026-12-05T20:30:00+01:00',
      })
      const res = await ctx.http('GET', '/events?q=Words%20at', { headers: browser })
      assert.equal(res.status, 200, res.text)
      assert.ok(res.text.includes(`<a href="/locations/${mill}">Old Mill</a>`), res.text)
      assert.ok(res.text.includes(`<a href="/locations/${quay}">Quay Hall</a>`), res.text)
      assert.doesNotMatch(res.text, /Location \d/)
      assert.ok(res.text.includes('<time datetime="2026-12-04T19:30:00Z">Fri 4 Dec 2026, 19:30 UTC</time>'))
      assert.ok(res.text.includes('<time datetime="2026-12-05T19:30:00Z">Sat 5 Dec 2026, 19:30 UTC</time>'))
    })

    it('gives the edit form the locations to move the event to, sent as a merge patch', async () => {
      const { id } = await ctx.createEvent({ title: 'Movable' })
      const page = (await ctx.http('GET', `/events/${id}`, { headers: browser })).text
      const form = /<form id="edit"[^>]*>/.exec(page)?.[0] ?? ''
      assert.match(form, /data-method="PATCH"/)
      assert.match(form, /data-type="application\/merge-patch\+json"/)
      const select = /<select id="edit-location_id" name="location_id"[^>]*>([\s\S]*?)<\/select>/.exec(page)
      assert.ok(select, 'the location is a select')
      assert.ok(select[1]?.includes(`<option value="${ctx.locationId}" selected>Town Hall</option>`))
    })
  })
}

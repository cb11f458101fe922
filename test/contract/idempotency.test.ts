// CONTRACT.md §3: POST /events honours Idempotency-Key — a retry with the same key and body
// returns the first response and creates nothing; the same key with another body is 422.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { contractService } from '../support/contract.ts'
import { basic, type Response } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] POST /events with Idempotency-Key`, () => {
    const ctx = contractService(target)

    const post = (body: unknown, key: string | undefined, auth = ctx.service.editorAuth) =>
      ctx.service.request('POST', '/events', {
        headers: {
          authorization: auth,
          'content-type': 'application/json',
          ...(key !== undefined && { 'idempotency-key': key }),
        },
        body,
      })
    const total = async () => (await ctx.service.request('GET', '/events?per_page=1')).json().total as number

    it('answers a retry with the first response and creates nothing more', async () => {
      const body = { title: 'Once only', date: '2027-06-01T10:00:00Z', location_id: ctx.locationId }
      const before = await total()
      const first = await post(body, '"retry-1"')
      assert.equal(first.status, 201)
      // The event changes in between: the replay still answers what the first request got.
      const id = first.json().id
      const patched = await ctx.service.request('PATCH', `/events/${id}`, {
        headers: { authorization: ctx.service.editorAuth, 'content-type': 'application/merge-patch+json' },
        body: { title: 'Changed later' },
      })
      assert.equal(patched.status, 200)
      const again = await post({ ...body, date: '2027-06-01T12:00:00+02:00' }, 'retry-1')
      assert.equal(again.status, 201)
      assert.equal(again.text, first.text)
      assert.equal(again.header('location'), first.header('location'))
      assert.equal(await total(), before + 1)
    })

    it('refuses the same key with a different body (422) and creates nothing', async () => {
      const first = await post(
        { title: 'Keyed A', date: '2027-06-02T10:00:00Z', location_id: ctx.locationId },
        'retry-2',
      )
      assert.equal(first.status, 201)
      const before = await total()
      const other = await post(
        { title: 'Keyed B', date: '2027-06-02T10:00:00Z', location_id: ctx.locationId },
        'retry-2',
      )
      assert.equal(other.status, 422)
      assert.equal(other.header('content-type'), 'application/problem+json')
      assert.match(other.json().detail, /Idempotency-Key/)
      assert.equal(await total(), before)
    })

    it('keeps the keys of different users apart', async () => {
      await ctx.service.store.putUser(
        'second-editor',
        'editor',
        (await ctx.service.store.findUser('editor'))?.passwordHash ?? '',
      )
      const body = { title: 'Same key, two users', date: '2027-06-03T10:00:00Z', location_id: ctx.locationId }
      const mine = await post(body, 'shared-key')
      const theirs = await post(body, 'shared-key', basic('second-editor', 'editor-password-1'))
      assert.equal(mine.status, 201)
      assert.equal(theirs.status, 201)
      assert.notEqual(mine.json().id, theirs.json().id)
    })

    it('creates one event for ten concurrent requests with one key, all answered alike', async () => {
      const before = await total()
      const body = { title: 'Concurrent once', date: '2027-06-04T10:00:00Z', location_id: ctx.locationId }
      const results: Response[] = await Promise.all(
        Array.from({ length: 10 }, () => post(body, 'concurrent-1')),
      )
      assert.deepEqual(
        results.map((r) => r.status),
        Array(10).fill(201),
      )
      for (const r of results) assert.equal(r.text, results[0]?.text)
      assert.equal(await total(), before + 1)
    })

    it('stores nothing for a request that fails validation, so the key stays free', async () => {
      const bad = await post(
        { title: '', date: '2027-06-05T10:00:00Z', location_id: ctx.locationId },
        'after-422',
      )
      assert.equal(bad.status, 422)
      const good = await post(
        { title: 'Now valid', date: '2027-06-05T10:00:00Z', location_id: ctx.locationId },
        'after-422',
      )
      assert.equal(good.status, 201)
    })

    for (const key of ['', 'has space', 'x'.repeat(256), '"unterminated']) {
      it(`refuses the malformed key ${JSON.stringify(key.slice(0, 20))} with 400`, async () => {
        const before = await total()
        const res = await post(
          { title: 'Bad key', date: '2027-06-06T10:00:00Z', location_id: ctx.locationId },
          key,
        )
        assert.equal(res.status, 400)
        assert.equal(await total(), before)
      })
    }

    // A day cannot pass in a test: the store is asked directly with a lifetime of zero, which
    // is what the 24-hour lifetime becomes once it has run out.
    it('forgets a key once its lifetime has passed, so the same key creates a new event', async () => {
      const event = { title: 'Expiring key', date: Date.UTC(2027, 5, 7), locationId: ctx.locationId }
      const key = (fingerprint: string, lifetimeMs: number) => ({
        principal: 'editor',
        key: 'expiring',
        fingerprint,
        lifetimeMs,
      })
      const first = await ctx.service.store.createEventOnce(event, key('a', 86_400_000))
      const replay = await ctx.service.store.createEventOnce(event, key('a', 86_400_000))
      assert.deepEqual([first.replayed, replay.replayed, replay.event.id], [false, true, first.event.id])
      const stamped = Date.now()
      while (Date.now() === stamped) await new Promise((resolve) => setImmediate(resolve))
      const afterExpiry = await ctx.service.store.createEventOnce(event, key('b', 0))
      assert.equal(afterExpiry.replayed, false)
      assert.notEqual(afterExpiry.event.id, first.event.id)
    })

    it('sweeps expired keys apart from requests, and only those', async () => {
      const event = { title: 'Swept key', date: Date.UTC(2027, 5, 8), locationId: ctx.locationId }
      const key = (name: string) => ({
        principal: 'editor',
        key: name,
        fingerprint: 'f',
        lifetimeMs: 86_400_000,
      })
      const old = await ctx.service.store.createEventOnce(event, key('swept-old'))
      const cutoff = Date.now() + 1
      while (Date.now() < cutoff) await new Promise((resolve) => setImmediate(resolve))
      assert.ok((await ctx.service.store.forgetIdempotencyKeys(cutoff)) >= 1)
      const fresh = await ctx.service.store.createEventOnce(event, key('swept-new'))
      assert.equal(await ctx.service.store.forgetIdempotencyKeys(cutoff), 0, 'a newer key is kept')
      // The swept key is free again; the kept one still replays.
      assert.notEqual(
        (await ctx.service.store.createEventOnce(event, key('swept-old'))).event.id,
        old.event.id,
      )
      assert.equal((await ctx.service.store.createEventOnce(event, key('swept-new'))).replayed, true)
      assert.equal(fresh.replayed, false)
    })
  })
}

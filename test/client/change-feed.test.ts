// The client's change feed against the real service on each store: every change once and in
// order, across connections cut by a TCP proxy between client and service (the client resumes
// with Last-Event-ID), and a clean stop by return() or an AbortSignal.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Change, EventServiceClient } from '../../src/client/index.ts'
import { poll } from '../support/process.ts'
import { editor, startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] the client's change feed`, () => {
    let service: TestService
    let proxy: TcpProxy
    let writer: EventServiceClient
    let locationId: number

    before(async () => {
      service = await startService(target)
      proxy = await startTcpProxy({ host: '127.0.0.1', port: service.port })
      writer = new EventServiceClient({ baseUrl: service.baseUrl, credentials: editor })
      locationId = (await service.store.createLocation({ name: 'Hall', address: '1 Main St' })).id
    })
    after(async () => {
      await proxy.close()
      await service.close()
    })

    /** Reads the feed into `seen` until stopped; resolves when the iteration has ended. */
    function watch(client: EventServiceClient, seen: Change[], options = {}) {
      const feed = client.events.changes({ maxRetryMs: 200, ...options })
      const done = (async () => {
        for await (const change of feed) seen.push(change)
      })()
      return { feed, done }
    }

    it('yields every change once, in order, across dropped connections', async () => {
      const reconnects: unknown[] = []
      const client = new EventServiceClient({ baseUrl: `http://127.0.0.1:${proxy.port}` })
      const seen: Change[] = []
      // From the first change on (this test runs first, on a new database).
      const { feed, done } = watch(client, seen, {
        lastEventId: 0,
        onReconnect: (info: unknown) => reconnects.push(info),
      })

      const expected: string[] = []
      for (let round = 1; round <= 3; round++) {
        const event = await writer.events.create({
          title: `Feed ${round}`,
          date: '2027-01-01T10:00:00Z',
          location_id: locationId,
        })
        const renamed = await writer.events.patch(event, { title: `Feed ${round} renamed` })
        expected.push(`created ${event.id}`, `updated ${event.id}`)
        if (round === 2) {
          await writer.events.delete(renamed)
          expected.push(`deleted ${event.id}`)
        }
        // Cut a live connection: changes made meanwhile arrive after the client reconnects.
        await poll(() => seen.length >= expected.length)
        await proxy.cut('refuse')
        const extra = await writer.events.create({
          title: `Missed ${round}`,
          date: '2027-01-02T10:00:00Z',
          location_id: locationId,
        })
        expected.push(`created ${extra.id}`)
        await proxy.restore()
      }
      await poll(() => seen.length >= expected.length)
      await feed.return?.()
      await done
      assert.deepEqual(
        seen.map((c) => `${c.kind} ${c.kind === 'reset' ? '' : c.event.id}`),
        expected,
      )
      const numbers = seen.map((c) => c.id)
      assert.deepEqual(
        numbers,
        [...numbers].sort((a, b) => a - b),
        'in order',
      )
      assert.equal(new Set(numbers).size, numbers.length, 'none twice')
      assert.ok(reconnects.length >= 3, `it reconnected after each cut: ${reconnects.length}`)
      const created = seen.find((c) => c.kind === 'created')
      assert.ok(created && created.kind === 'created' && created.event.title.startsWith('Feed'))
    })

    it('resumes after a given change number and stops cleanly on an AbortSignal', async () => {
      const client = new EventServiceClient({ baseUrl: service.baseUrl })
      const a = await writer.events.create({
        title: 'Resume a',
        date: '2027-01-03T10:00:00Z',
        location_id: locationId,
      })
      const b = await writer.events.create({
        title: 'Resume b',
        date: '2027-01-03T10:00:00Z',
        location_id: locationId,
      })
      const all: Change[] = []
      const everything = watch(client, all, { lastEventId: 0 })
      await poll(() => all.some((c) => c.kind === 'created' && c.event.id === b.id))
      await everything.feed.return?.()
      await everything.done
      const afterA = all.find((c) => c.kind === 'created' && c.event.id === a.id)
      assert.ok(afterA)

      const stop = new AbortController()
      const seen: Change[] = []
      const resumed = watch(client, seen, { lastEventId: afterA.id, signal: stop.signal })
      await poll(() => seen.length > 0)
      assert.equal(seen[0]?.kind === 'created' && seen[0].event.id, b.id, 'the change after the one given')
      stop.abort()
      await resumed.done
    })

    it('fails at once, with the problem, when the service refuses the resume point', async () => {
      const client = new EventServiceClient({ baseUrl: service.baseUrl })
      const feed = client.events.changes({ lastEventId: 10 ** 12 })
      await assert.rejects(feed.next(), (error: Error & { status?: number }) => error.status === 400)
    })
  })
}

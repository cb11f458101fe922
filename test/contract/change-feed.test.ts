// CONTRACT.md §7: GET /events as text/event-stream streams one message per committed change, in
// number order, with the event as GET answers it right after; Last-Event-ID resumes without a gap
// or a duplicate; what the log no longer holds gives `reset`.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { describe, it } from 'node:test'
import { assertProblem, contractService, jsonHeaders, types } from '../support/contract.ts'
import { type Response, send, startService } from '../support/service.ts'
import { type Feed, openFeed, type SseEvent } from '../support/sse.ts'
import { storeTargets } from '../support/stores.ts'

const eventStream = 'text/event-stream'
const ids = (events: readonly SseEvent[]) => events.map((e) => Number(e.id))

/** Fails unless the numbers go up by one each time (committed numbers leave no gap). */
function assertConsecutive(events: readonly SseEvent[]) {
  const numbers = ids(events)
  for (let i = 1; i < numbers.length; i++) {
    assert.equal(numbers[i], (numbers[i - 1] as number) + 1, `ids must be consecutive: ${numbers}`)
  }
}

/** Drains the feed by closing it, whatever a failed assertion left open. */
async function withFeed<T>(opening: Promise<Feed>, use: (feed: Feed) => Promise<T>): Promise<T> {
  const feed = await opening
  try {
    return await use(feed)
  } finally {
    feed.close()
  }
}

for (const target of storeTargets) {
  describe(`[${target.name}] the change feed (GET /events as text/event-stream)`, () => {
    const c = contractService(target, { settings: { feedHeartbeatMs: '50' } })
    const feed = (headers: Record<string, string> = {}, path?: string) =>
      openFeed(c.service.baseUrl, headers, path)
    const write = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      c.http(method, path, {
        headers: { ...jsonHeaders(c.service.editorAuth), ...headers },
        ...(body !== undefined && { body }),
      })
    /** GET /events/<id>'s body, as text. */
    const read = async (id: number) => (await c.http('GET', `/events/${id}`)).text

    it('answers 200 text/event-stream at once, with the common headers and no-store', async () => {
      await withFeed(feed({ 'x-request-id': 'feed-1' }), async (f) => {
        assert.equal(f.status, 200)
        assert.equal(f.headers['content-type'], eventStream)
        assert.equal(f.headers['cache-control'], 'no-store')
        assert.match(String(f.headers.vary), /\bAccept\b/)
        assert.equal(f.headers['x-request-id'], 'feed-1')
        assert.ok(f.headers.date)
        assert.equal(f.headers['content-length'], undefined)
      })
    })

    it('sends created, updated and deleted in order, each data exactly what GET answered after it', async () => {
      await withFeed(feed(), async (f) => {
        const created = await write('POST', '/events', c.newEventBody({ title: 'Feed me' }))
        assert.equal(created.status, 201)
        const id = created.json().id as number
        const afterCreate = await read(id)
        const put = await write('PUT', `/events/${id}`, { title: 'Fed', date: '2027-01-02T03:04:05.678Z' })
        assert.equal(put.status, 200)
        const afterPut = await read(id)
        const other = await c.newLocation('Harbour', '2 Quay')
        const patched = await write(
          'PATCH',
          `/events/${id}`,
          { location_id: other },
          {
            'content-type': types.mergePatch,
          },
        )
        assert.equal(patched.status, 200)
        const afterPatch = await read(id)
        assert.equal((await write('DELETE', `/events/${id}`)).status, 204)

        const events = await f.take(4)
        assert.deepEqual(
          events.map((e) => e.event),
          ['created', 'updated', 'updated', 'deleted'],
        )
        assertConsecutive(events)
        assert.deepEqual(
          events.slice(0, 3).map((e) => e.data),
          [afterCreate, afterPut, afterPatch],
        )
        assert.equal(afterCreate, created.text)
        assert.deepEqual(JSON.parse(events[3]?.data ?? ''), {
          links: JSON.parse(afterPatch).links,
          id,
        })
      })
    })

    it('never sends a write that failed and rolled back (412, 422), nor an empty merge patch', async () => {
      const event = await c.createEvent()
      await withFeed(feed(), async (f) => {
        const stale = await write(
          'PUT',
          `/events/${event.id}`,
          { title: 'Never', date: event.date },
          {
            'if-match': '"stale"',
          },
        )
        assertProblem(stale, 412)
        const unknownLocation = await write('POST', '/events', c.newEventBody({ location_id: 999_999 }))
        assertProblem(unknownLocation, 422, '/location_id')
        const empty = await write('PATCH', `/events/${event.id}`, {}, { 'content-type': types.mergePatch })
        assert.equal(empty.status, 200)
        const ok = await write(
          'PATCH',
          `/events/${event.id}`,
          { title: 'Once' },
          {
            'content-type': types.mergePatch,
          },
        )
        assert.equal(ok.status, 200)
        const [first] = await f.take(1)
        assert.equal(first?.event, 'updated')
        assert.equal(JSON.parse(first?.data ?? '').title, 'Once')
        // The next change comes next: nothing was sent or numbered in between.
        const next = await c.createEvent()
        const events = await f.take(2)
        assert.equal(JSON.parse(events[1]?.data ?? '').id, next.id)
        assertConsecutive(events)
        assert.equal(events.length, 2)
      })
    })

    it('logs an idempotent create once, and not its replay', async () => {
      await withFeed(feed(), async (f) => {
        const body = c.newEventBody()
        const key = { 'idempotency-key': `feed-${Date.now()}` }
        const first = await write('POST', '/events', body, key)
        const again = await write('POST', '/events', body, key)
        assert.equal(again.text, first.text)
        const marker = await c.createEvent()
        const events = await f.take(2)
        assert.deepEqual(
          events.map((e) => JSON.parse(e.data).id),
          [first.json().id, marker.id],
        )
      })
    })

    it('resumes after Last-Event-ID with exactly the missed changes, then live ones', async () => {
      let last: string | undefined
      await withFeed(feed(), async (f) => {
        await c.createEvent()
        last = (await f.take(1))[0]?.id
      })
      const missed = [await c.createEvent(), await c.createEvent(), await c.createEvent()]
      await withFeed(feed({ 'last-event-id': String(last) }), async (f) => {
        const replayed = await f.take(3)
        assert.deepEqual(
          replayed.map((e) => JSON.parse(e.data).id),
          missed.map((e) => e.id),
        )
        assert.equal(Number(replayed[0]?.id), Number(last) + 1)
        const live = await c.createEvent()
        const events = await f.take(4)
        assert.equal(JSON.parse(events[3]?.data ?? '').id, live.id)
        assertConsecutive(events)
        assert.equal(events.length, 4, 'no duplicate')
      })
    })

    it('resumes through the lastEventId query parameter too (EventSource polyfills)', async () => {
      const base = await c.createEvent()
      let last = ''
      await withFeed(feed(), async (f) => {
        await c.createEvent()
        last = (await f.take(1))[0]?.id ?? ''
      })
      const missed = await c.createEvent()
      await withFeed(feed({}, `/events?lastEventId=${last}`), async (f) => {
        const [first] = await f.take(1)
        assert.equal(JSON.parse(first?.data ?? '').id, missed.id)
        assert.equal(Number(first?.id), Number(last) + 1)
      })
      assert.ok(base.id < missed.id)
    })

    it('sends reset when changes after Last-Event-ID are no longer kept, then goes on live', async () => {
      let last = ''
      await withFeed(feed(), async (f) => {
        await c.createEvent()
        last = (await f.take(1))[0]?.id ?? ''
      })
      await c.createEvent()
      await c.createEvent()
      // By age: everything is older than a second from now, and only the newest change stays.
      assert.ok((await c.service.store.trimChangeLog(Date.now() + 1_000, 1_000_000)) >= 2)
      await withFeed(feed({ 'last-event-id': last }), async (f) => {
        const [reset] = await f.take(1)
        assert.equal(reset?.event, 'reset')
        assert.deepEqual(JSON.parse(reset?.data ?? '').links, [
          { uri: '/events', rel: 'collection', type: 'application/vnd.service.events' },
        ])
        const live = await c.createEvent()
        const events = await f.take(2)
        assert.equal(JSON.parse(events[1]?.data ?? '').id, live.id)
        assertConsecutive(events)
      })
    })

    it('trims the log by count too, always keeping the newest change', async () => {
      for (let i = 0; i < 3; i++) await c.createEvent()
      const { newest } = await c.service.store.changeLogBounds()
      await c.service.store.trimChangeLog(0, 2)
      assert.deepEqual(await c.service.store.changeLogBounds(), { oldest: newest - 1, newest })
      await c.service.store.trimChangeLog(0, 0)
      assert.deepEqual(await c.service.store.changeLogBounds(), { oldest: newest, newest })
    })

    it('sends reset, once, for an import instead of a message per event', async () => {
      await withFeed(feed(), async (f) => {
        await c.service.store.importLocations([
          {
            name: 'Imported',
            address: 'Somewhere',
            events: [1, 2, 3].map((n) => ({ title: `Imported ${n}`, date: n * 86_400_000 })),
          },
        ])
        const after = await c.createEvent()
        const events = await f.take(2)
        assert.equal(events[0]?.event, 'reset')
        assert.equal(JSON.parse(events[1]?.data ?? '').id, after.id)
      })
    })

    it('refuses a malformed or future Last-Event-ID, paging parameters and a body with 400', async () => {
      const newest = await withFeed(feed(), async (f) => {
        await c.createEvent()
        return Number((await f.take(1))[0]?.id)
      })
      const refused: Response[] = []
      for (const id of ['abc', '-1', '1.5', '+1', '1e3', String(newest + 1), '9'.repeat(30)]) {
        refused.push(
          await c.http('GET', '/events', { headers: { accept: eventStream, 'last-event-id': id } }),
        )
      }
      refused.push(await c.http('GET', '/events?lastEventId=x', { headers: { accept: eventStream } }))
      refused.push(
        await c.http('GET', `/events?lastEventId=${newest}`, {
          headers: { accept: eventStream, 'last-event-id': String(newest - 1) },
        }),
      )
      refused.push(await c.http('GET', '/events?page=2', { headers: { accept: eventStream } }))
      refused.push(
        await c.http('GET', '/events', {
          headers: { accept: eventStream, 'content-type': types.json },
          body: { per_page: 5 },
        }),
      )
      for (const res of refused) assertProblem(res, 400)
    })

    it('answers HEAD with the headers alone, and 406 for text/event-stream anywhere else', async () => {
      const head = await c.http('HEAD', '/events', { headers: { accept: eventStream } })
      assert.equal(head.status, 200)
      assert.equal(head.header('content-type'), eventStream)
      assert.equal(head.header('content-length'), undefined)
      const query = await c.http('QUERY', '/events', { headers: { accept: eventStream } })
      assertProblem(query, 406)
      const event = await c.createEvent()
      assertProblem(await c.http('GET', `/events/${event.id}`, { headers: { accept: eventStream } }), 406)
      const json = await c.http('GET', '/events', {
        headers: { accept: 'application/json, text/event-stream;q=0.5' },
      })
      assert.equal(json.header('content-type'), types.events)
    })

    it('is documented at /rel/events, which OPTIONS /events links to', async () => {
      const doc = await c.http('GET', '/rel/events')
      assert.equal(doc.status, 200)
      assert.match(doc.json().description, /text\/event-stream/)
      assert.match(doc.json().description, /Last-Event-ID/)
      const options = await c.http('OPTIONS', '/events', { headers: { accept: eventStream } })
      assert.equal(options.status, 204)
      assert.match(options.header('allow') ?? '', /\bGET\b/)
      assert.equal(options.header('link'), '</rel/events>; rel="describedby"')
    })

    it('sends heartbeat comments at FEED_HEARTBEAT_MS', async () => {
      await withFeed(feed(), async (f) => {
        await f.until(() => f.comments.filter((x) => x === 'keep-alive').length >= 2, 'two heartbeats')
      })
    })

    it('counts open feeds in /metrics and leaves them out of the request latency', async () => {
      const metric = async () => {
        const text = (await send(c.service.baseUrl, 'GET', '/metrics')).text
        const timed =
          /^http_request_duration_seconds_count\{method="GET",route="\/events",status="200"\} (\d+)/m.exec(
            text,
          )
        return { open: Number(/^feed_connections (\d+)/m.exec(text)?.[1]), timed: Number(timed?.[1] ?? 0) }
      }
      // The feeds of earlier tests close asynchronously: start from none open.
      const settled = Date.now() + 5_000
      while ((await metric()).open !== 0 && Date.now() < settled) await new Promise((r) => setImmediate(r))
      const before = await metric()
      await withFeed(feed(), async () => {
        assert.equal((await metric()).open, before.open + 1)
      })
      const deadline = Date.now() + 5_000
      while ((await metric()).open !== 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r))
      const after = await metric()
      assert.equal(after.open, 0)
      assert.equal(after.timed, before.timed, 'a feed is not a request with a latency')
    })
  })

  describe(`[${target.name}] a change feed under short connection deadlines`, () => {
    const short = contractService(target, {
      settings: { headersTimeoutMs: '200', requestTimeoutMs: '200', feedHeartbeatMs: '50' },
    })
    it('is not cut by the header and request deadlines, however long it stays open', async () => {
      await withFeed(openFeed(short.service.baseUrl), async (f) => {
        // 25 heartbeats at 50 ms: well past both deadlines and several of their checks.
        await f.until(() => f.comments.filter((x) => x === 'keep-alive').length >= 25, '25 heartbeats')
        const event = await short.createEvent()
        const [created] = await f.take(1)
        assert.equal(JSON.parse(created?.data ?? '').id, event.id)
      })
    })
  })

  // About HTTP buffering, not the store: run once, on the store that writes fastest.
  describe(`[${target.name}] a change feed whose client stops reading`, {
    skip: target.name !== 'sqlite',
  }, () => {
    const slow = contractService(target, { settings: { feedMaxBufferedBytes: String(16 * 1024) } })
    it('is dropped once its unread bytes pass FEED_MAX_BUFFERED_BYTES, and the server holds no more', async () => {
      const open = async () =>
        Number(
          /^feed_connections (\d+)/m.exec((await send(slow.service.baseUrl, 'GET', '/metrics')).text)?.[1],
        )
      const client = connect(slow.service.port, '127.0.0.1')
      client.on('error', () => {})
      try {
        client.write('GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n')
        // Never read: what the server writes piles up in the kernel's buffers, then in the server's.
        client.pause()
        const deadline = Date.now() + 5_000
        while ((await open()) !== 1) assert.ok(Date.now() < deadline, 'the feed never opened')
        const title = 'x'.repeat(200)
        let created = 0
        while (created < 20_000) {
          await slow.service.store.createEvent({ title, date: created, locationId: slow.locationId })
          created++
          if (created % 100 === 0 && (await open()) === 0) break
        }
        const dropped = Date.now() + 5_000
        while ((await open()) !== 0) assert.ok(Date.now() < dropped, `still open after ${created} changes`)
        // The connection itself is gone: reading what was buffered ends in its close.
        const closed = new Promise((resolve) => client.once('close', resolve))
        client.resume()
        await closed
      } finally {
        client.destroy()
      }
    })
  })

  describe(`[${target.name}] caps on open change feeds`, () => {
    const perAddress = contractService(target, {
      location: false,
      settings: { feedMaxConnectionsPerAddress: '1' },
    })
    it('refuses a feed over the per-address cap with 429, Retry-After and a problem', async () => {
      await withFeed(openFeed(perAddress.service.baseUrl), async (first) => {
        assert.equal(first.status, 200)
        const second = await perAddress.http('GET', '/events', { headers: { accept: eventStream } })
        assertProblem(second, 429)
        assert.ok(Number(second.header('retry-after')) > 0)
      })
    })
  })

  describe(`[${target.name}] caps on open change feeds in total`, () => {
    const total = contractService(target, {
      location: false,
      settings: { feedMaxConnections: '1', feedMaxConnectionsPerAddress: '0' },
    })
    it('refuses a feed over the total cap with 503, Retry-After and a problem', async () => {
      await withFeed(openFeed(total.service.baseUrl), async (first) => {
        assert.equal(first.status, 200)
        // Not through the checked client, which takes any 5xx for a bug.
        const second = await total.service.request('GET', '/events', { headers: { accept: eventStream } })
        assertProblem(second, 503)
        assert.ok(Number(second.header('retry-after')) > 0)
      })
    })
  })

  describe(`[${target.name}] a change feed asked for while the service drains`, () => {
    it('answers 200 with a feed that asks for a retry and ends, never a 503 an EventSource gives up on', async () => {
      let drainBegan = () => {}
      let finishDrain = () => {}
      const draining = new Promise<void>((resolve) => {
        drainBegan = resolve
      })
      const held = new Promise<void>((resolve) => {
        finishDrain = resolve
      })
      const running = await startService(
        target,
        {},
        {
          // After the feed's own preClose hook (registered first), which marks the drain: until it
          // returns, the server still takes connections, as during a restart's first moments.
          beforeListen: (app) =>
            app.addHook('preClose', async () => {
              drainBegan()
              await held
            }),
        },
      )
      const closing = running.close()
      await draining
      try {
        const res = await running.request('GET', '/events', { headers: { accept: eventStream } })
        assert.equal(res.status, 200, res.text)
        assert.equal(res.header('content-type'), eventStream)
        assert.equal(res.header('cache-control'), 'no-store')
        assert.match(res.text, /^retry: \d+\n\n$/)
      } finally {
        finishDrain()
        await closing
      }
    })
  })
}

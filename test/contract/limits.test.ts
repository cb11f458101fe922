// Limits (CONTRACT.md §6, §5): a body over 16 KiB is 413, a header section over 16 KiB is 431, and
// a request that does not arrive in time is 408 — each as a problem with the headers every response
// carries, and without a change to the data. (per_page ≤ 100 and titles ≤ 200 characters are
// checked with paging and with the event fields.)
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  assertCommonHeaders,
  assertEveryResponse,
  assertProblem,
  contractService,
  jsonHeaders,
  rawExchange,
  sendChunked,
  types,
} from '../support/contract.ts'
import { type Response, send } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const bodyLimit = 16 * 1024
const padded = (json: string, size: number) => json + ' '.repeat(size - Buffer.byteLength(json))

for (const target of storeTargets) {
  describe(`[${target.name}] size limits`, () => {
    const ctx = contractService(target)

    const newEvent = () => JSON.stringify(ctx.newEventBody())

    it('takes a body of exactly 16 KiB and refuses one byte more with 413, creating nothing', async () => {
      const at = await ctx.http('POST', '/events', {
        headers: jsonHeaders(ctx.service.editorAuth),
        body: padded(newEvent(), bodyLimit),
      })
      assert.equal(at.status, 201, `a body of exactly ${bodyLimit} bytes is taken: ${at.text}`)
      const before = await ctx.totalEvents()
      const over = await ctx.http('POST', '/events', {
        headers: jsonHeaders(ctx.service.editorAuth),
        body: padded(newEvent(), bodyLimit + 1),
      })
      assertProblem(over, 413)
      assert.equal(await ctx.totalEvents(), before)
    })

    it('refuses large PUT, PATCH, GET and QUERY bodies with 413, changing nothing', async () => {
      const event = await ctx.createEvent()
      const big = padded('{"title":"Big","date":"2027-01-01T00:00:00Z"}', 20 * 1024)
      const put = await ctx.http('PUT', `/events/${event.id}`, {
        headers: jsonHeaders(ctx.service.editorAuth),
        body: big,
      })
      assertProblem(put, 413)
      const patch = await ctx.http('PATCH', `/events/${event.id}`, {
        headers: jsonHeaders(ctx.service.editorAuth, types.mergePatch),
        body: padded('{"title":"Big"}', 20 * 1024),
      })
      assertProblem(patch, 413)
      for (const method of ['GET', 'QUERY']) {
        assertProblem(
          await ctx.http(method, '/events', { headers: jsonHeaders(), body: padded('{}', 20 * 1024) }),
          413,
        )
      }
      assert.deepEqual((await ctx.readEvent(event.id)).event, event)
    })

    it('refuses a large chunked body that declares no length with 413', async () => {
      const before = await ctx.totalEvents()
      const chunks = [
        Buffer.from(newEvent()),
        ...Array.from({ length: 20 }, () => Buffer.from(' '.repeat(1024))),
      ]
      const res = await sendChunked(
        ctx.service.baseUrl,
        'POST',
        '/events',
        jsonHeaders(ctx.service.editorAuth),
        chunks,
      )
      assertProblem(res, 413)
      assert.equal(await ctx.totalEvents(), before)
    })

    it('refuses request headers over 16 KiB with 431 as a problem, with the headers of every response', async () => {
      const small = await ctx.http('GET', '/events', { headers: { 'x-padding': 'a'.repeat(8 * 1024) } })
      assert.equal(small.status, 200, 'headers well under the limit are fine')
      // Sent without the checking client, so that the assertions below name each fault in turn.
      const res = await send(ctx.service.baseUrl, 'GET', '/events', {
        headers: { 'x-padding': 'a'.repeat(20 * 1024) },
      })
      assert.equal(res.status, 431)
      assertProblem(res, 431)
      assertCommonHeaders(res, 'GET /events with 20 KiB of headers → 431')
      assertEveryResponse('GET', '/events', res)
    })
  })

  describe(`[${target.name}] time limits (set short for the test)`, () => {
    const ctx = contractService(target, {
      settings: { headersTimeoutMs: '500', requestTimeoutMs: '1000' },
      location: false,
    })

    /** The single response to a request that stops half-way, checked as every response is. */
    async function timedOut(text: string): Promise<Response> {
      const responses = await rawExchange(ctx.service.port, text)
      assert.equal(responses.length, 1, `exactly one response: ${responses.map((r) => r.status).join(', ')}`)
      const [res] = responses as [Response]
      assertProblem(res, 408)
      assertCommonHeaders(res, `${JSON.stringify(text.slice(0, 30))} → ${res.status}`)
      assertEveryResponse('(slow)', '/events', res)
      return res
    }

    // Both slow requests wait for the same server-side timer, so they run side by side.
    it('answers 408 when the headers or the body do not arrive in time, creating nothing', {
      timeout: 15_000,
    }, async () => {
      const location = await ctx.newLocation()
      const before = await ctx.totalEvents()
      const body = JSON.stringify({ title: 'Slow', date: '2026-12-04T19:30:00Z', location_id: location })
      await Promise.all([
        timedOut('GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n'),
        timedOut(
          'POST /events HTTP/1.1\r\nHost: localhost\r\n' +
            `Authorization: ${ctx.service.editorAuth}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${Buffer.byteLength(body) + 10}\r\n\r\n${body}`,
        ),
      ])
      assert.equal(await ctx.totalEvents(), before)
    })
  })
}

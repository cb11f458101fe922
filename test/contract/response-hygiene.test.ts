// Fields every answer carries or lacks, whatever produced it: X-Content-Type-Options: nosniff (Fetch
// standard, "X-Content-Type-Options" — a browser must not guess a script out of a JSON body) and no
// X-Powered-By (it tells an attacker only what to try). Over plain HTTP, no Strict-Transport-Security
// (RFC 6797 §7.2); test/process/tls.test.ts covers HTTPS.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { before, describe, it } from 'node:test'
import { contractService, type Json, jsonHeaders } from '../support/contract.ts'
import type { Response } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

/** Sends bytes that are not a well-formed request and gives back the raw answer (head and body). */
async function rawAnswer(port: number, bytes: string): Promise<string> {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  let answer = ''
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    answer += chunk
  })
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.write(bytes)
  await closed
  return answer
}

/** The header fields of a raw answer, by lower-case name. */
function rawHeaders(answer: string): Map<string, string> {
  const [head = ''] = answer.split('\r\n\r\n')
  return new Map(
    head
      .split('\r\n')
      .slice(1)
      .map((line) => {
        const colon = line.indexOf(':')
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const
      }),
  )
}

function assertHygiene(res: Response, where: string) {
  assert.equal(res.header('x-content-type-options'), 'nosniff', `${where}: nosniff`)
  assert.equal(res.header('x-powered-by'), undefined, `${where}: no X-Powered-By`)
  assert.equal(res.header('strict-transport-security'), undefined, `${where}: no HSTS over plain HTTP`)
}

for (const target of storeTargets) {
  describe(`[${target.name}] response hygiene`, () => {
    const ctx = contractService(target, { settings: { maxHeaderSize: '1024' } })
    let event: Json
    before(async () => {
      event = await ctx.createEvent()
    })

    it('sends nosniff and no X-Powered-By on 2xx, 304, problems, 405 and OPTIONS', async () => {
      const { etag } = await ctx.readEvent(event.id)
      const cases: [number, string, string, Record<string, string>][] = [
        [200, 'GET', '/events', {}],
        [200, 'HEAD', `/events/${event.id}`, {}],
        [200, 'GET', '/health/live', {}],
        [304, 'GET', `/events/${event.id}`, { 'if-none-match': etag as string }],
        [204, 'OPTIONS', '/events', {}],
        [401, 'DELETE', `/events/${event.id}`, {}],
        [404, 'GET', '/events/987654', {}],
        [404, 'GET', '/no/such/path', {}],
        [405, 'DELETE', '/events', { authorization: ctx.service.editorAuth }],
        [406, 'GET', '/events', { accept: 'application/xml' }],
      ]
      for (const [status, method, path, headers] of cases) {
        const res = await ctx.http(method, path, { headers })
        assert.equal(res.status, status, `${method} ${path} → ${res.status} ${res.text}`)
        assertHygiene(res, `${method} ${path} → ${status}`)
      }
    })

    it('sends them with a 400 for a body that is not JSON and with a malformed URL, which Fastify answers before any hook', async () => {
      const badJson = await ctx.http('POST', '/events', {
        headers: jsonHeaders(ctx.service.editorAuth),
        body: '{"title":',
      })
      assert.equal(badJson.status, 400)
      assertHygiene(badJson, 'malformed JSON')
      const badUrl = await ctx.service.request('GET', '/events/%E0%A4%A')
      assert.equal(badUrl.status, 400, badUrl.text)
      assertHygiene(badUrl, 'malformed percent-encoding')
    })

    it('sends nosniff with the 400 and 431 written straight to the socket for requests HTTP cannot parse', async () => {
      const garbage = await rawAnswer(ctx.service.port, 'THIS IS NOT HTTP\r\n\r\n')
      const big = await rawAnswer(
        ctx.service.port,
        `GET /events HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(2048)}\r\n\r\n`,
      )
      for (const [status, answer] of [
        [400, garbage],
        [431, big],
      ] as const) {
        assert.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `), answer)
        const headers = rawHeaders(answer)
        assert.equal(headers.get('x-content-type-options'), 'nosniff', `${status}: ${answer}`)
        assert.equal(headers.has('x-powered-by'), false)
        assert.equal(headers.has('strict-transport-security'), false)
      }
    })
  })
}

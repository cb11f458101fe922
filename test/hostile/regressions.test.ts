// Answers the hostile-input suite (hostile-input.test.ts) found wrong, each pinned by the request
// that showed it: Node's own bare answers to a missing Host (400) and to an unknown Expect (417),
// which had no problem body, X-Request-Id or nosniff; and titles with an escaped unpaired
// surrogate, which were answered 200/201 and stored as U+FFFD (not what was sent or answered);
// and pipelined garbage after a whole request, whose 400 reached the client as the answer to
// that earlier request.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { assertEveryResponse, assertNoLeak, assertProblem, jsonHeaders, types } from '../support/contract.ts'
import { parseRawResponses, type RawResponse, rawSend } from '../support/hostile-raw.ts'
import { type Response, startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

/** Sends raw bytes and returns every answer; the server must close the connection, leaving nothing unparsed. */
async function exchange(port: number, text: string): Promise<RawResponse[]> {
  const outcome = await rawSend(
    port,
    { bytes: Buffer.from(text), splitAt: undefined, halfClose: false },
    5000,
  )
  assert.equal(outcome.end, 'closed', `${JSON.stringify(text)}: the server closes the connection`)
  assert.equal(outcome.trailing, undefined, `${JSON.stringify(text)}: only HTTP responses come back`)
  return outcome.responses
}

/** Sends `first`, waits for its whole answer, then sends `then`; resolves with every byte received until the close. */
function answeredThenGarbage(port: number, first: string, then: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connect(port, '127.0.0.1', () => socket.write(first))
    const timer = setTimeout(() => socket.destroy(), 5000)
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      if (chunks.length === 1) setTimeout(() => socket.write(then), 50)
    })
    socket.on('error', reject)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(Buffer.concat(chunks))
    })
  })
}

function asResponse(res: RawResponse): Response {
  const text = res.body.toString('utf8')
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: () => JSON.parse(text),
    header: (name) => res.headers[name.toLowerCase()],
  }
}

// The HTTP layer is the same on every store; one is enough.
const [target] = storeTargets
if (target) {
  describe(`[${target.name}] hostile-input regressions`, () => {
    let service: TestService
    before(async () => {
      service = await startService(target, { seed: 'true' })
    })
    after(() => service?.close())

    it('an HTTP/1.1 request without Host is a 400 problem with the fields of every answer, then the connection closes', async () => {
      for (const text of [
        'GET /events HTTP/1.1\r\nConnection: close\r\n\r\n',
        'POST /events HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
        'GET /health/live HTTP/1.1\r\n\r\nGET /health/live HTTP/1.1\r\nHost: x\r\n\r\n',
      ]) {
        const [res, ...more] = await exchange(service.port, text)
        assert.ok(res, `${JSON.stringify(text)}: an answer`)
        assert.deepEqual(more, [], `${JSON.stringify(text)}: nothing after it`)
        assert.equal(res.status, 400)
        assert.equal(res.headers['content-length'], String(res.body.length))
        assert.equal(res.headers['transfer-encoding'], undefined)
        assert.equal(res.headers['x-content-type-options'], 'nosniff')
        assert.equal(res.headers.connection, 'close')
        assertEveryResponse('GET', JSON.stringify(text), asResponse(res))
        assert.match(JSON.parse(res.body.toString()).detail, /Host/)
      }
    })

    it('HTTP/1.0 without Host and HTTP/1.1 with an empty Host are served as before', async () => {
      for (const text of [
        'GET /health/live HTTP/1.0\r\n\r\n',
        'GET /health/live HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n',
      ]) {
        const [res] = await exchange(service.port, text)
        assert.equal(res?.status, 200, `${JSON.stringify(text)} is served`)
      }
    })

    it('an Expect other than 100-continue is ignored (RFC 9110 §10.1.1): the request is answered as usual', async () => {
      const [read] = await exchange(
        service.port,
        'GET /events/1 HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n',
      )
      assert.ok(read)
      assert.equal(read.status, 200)
      assertEveryResponse('GET', '/events/1 with Expect: 200-ok', asResponse(read))
      const [refused] = await exchange(
        service.port,
        'DELETE /events/1 HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n',
      )
      assert.ok(refused)
      assert.equal(refused.status, 401, 'a write without credentials, Expect or not')
      assertEveryResponse('DELETE', '/events/1 with Expect: 200-ok', asResponse(refused))
      assertNoLeak(refused.body.toString(), 'DELETE with Expect: 200-ok')
      assert.equal((await service.request('GET', '/events/1')).status, 200, 'nothing was deleted')
    })

    it("garbage pipelined after a whole request is never answered in that request's place", async () => {
      for (const text of [
        'GET /events/1 HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n',
        'GET /events/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /events/2 HTTP/1.1\r\nHost: x\r\n\r\nGET /ev ents HTTP/1.1\r\n\r\n',
        'DELETE /events/1 HTTP/1.1\r\nHost: x\r\n\r\nPOST /events HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      ]) {
        const outcome = await rawSend(
          service.port,
          { bytes: Buffer.from(text), splitAt: undefined, halfClose: false },
          5000,
        )
        assert.notEqual(outcome.end, 'timeout', `${JSON.stringify(text)}: the connection is closed`)
        const [first] = outcome.responses
        // The first request is answered as itself (GET 200, DELETE without credentials 401), or the
        // connection closes without an answer; a 400 there would be the garbage's.
        if (first)
          assert.notEqual(
            first.status,
            400,
            `${JSON.stringify(text)}: the first answer is the first request's`,
          )
      }
      assert.equal((await service.request('GET', '/events/1')).status, 200, 'nothing was deleted')
      // Garbage in the body of the request being read is still answered 400, as before. With valid
      // credentials: without, the 401 is decided from the headers alone, before the body is read.
      const [bad] = await exchange(
        service.port,
        `POST /events HTTP/1.1\r\nHost: x\r\nAuthorization: ${service.editorAuth}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      )
      assert.equal(bad?.status, 400)
      // And garbage after an answered request on a kept-alive connection too.
      const { responses } = parseRawResponses(
        await answeredThenGarbage(
          service.port,
          'GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n',
          'GARBAGE\r\n\r\n',
        ),
      )
      assert.deepEqual(
        responses.map((r) => r.status),
        [200, 400],
      )
    })

    it('an escaped unpaired surrogate anywhere in a JSON body is a 400 and changes nothing; a pair is a character', async () => {
      const before = (await service.request('GET', '/events/2')).text
      const total = (await service.request('GET', '/events')).json().total
      const date = '2026-12-04T19:30:00Z'
      for (const title of ['\\ud800', 'a\\udfffb', '\\udc00\\ud800', 'x\\ud83d']) {
        for (const [method, path, type, body] of [
          ['POST', '/events', types.json, `{"title":"${title}","date":"${date}","location_id":1}`],
          ['PUT', '/events/2', types.json, `{"title":"${title}","date":"${date}"}`],
          ['PATCH', '/events/2', types.mergePatch, `{"title":"${title}"}`],
          ['PATCH', '/events/2', types.mergePatch, `{"title":"ok","${title}":1}`],
        ] as const) {
          const res = await service.request(method, path, {
            headers: jsonHeaders(service.editorAuth, type),
            body,
          })
          assertEveryResponse(method, path, res)
          assertProblem(res, 400)
        }
        const list = await service.request('QUERY', '/events', {
          headers: jsonHeaders(),
          body: `{"x":"${title}"}`,
        })
        assertProblem(list, 400)
      }
      assert.equal((await service.request('GET', '/events/2')).text, before, 'event 2 is unchanged')
      assert.equal((await service.request('GET', '/events')).json().total, total, 'nothing was created')
      const paired = await service.request('PATCH', '/events/2', {
        headers: jsonHeaders(service.editorAuth, types.mergePatch),
        body: '{"title":"party \\ud83c\\udf89"}',
      })
      assert.equal(paired.status, 200, paired.text)
      assert.equal(paired.json().title, 'party \u{1F389}')
    })
  })
}

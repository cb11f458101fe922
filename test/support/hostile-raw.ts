// Malformed HTTP on the wire for the hostile-input suite (test/hostile): generators of byte
// sequences no HTTP client would send (bad request lines, bad header syntax, conflicting framing,
// bad chunk sizes, pipelined garbage, absurd header counts), and a plain TCP client that sends
// them and parses whatever comes back, byte-exactly.
import { connect } from 'node:net'
import fc from 'fast-check'

// --- generators ---------------------------------------------------------------------------

const crlf = '\r\n'

const requestLine = fc.oneof(
  {
    weight: 10,
    arbitrary: fc
      .tuple(
        fc.constantFrom('GET', 'QUERY', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        fc.constantFrom(
          '/events',
          '/events/1',
          '/events/2',
          '/locations/1',
          '/health/live',
          '/events?page=2&per_page=3',
          '/nope',
        ),
        fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0'),
      )
      .map(([m, p, v]) => `${m} ${p} ${v}`),
  },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'GARBAGE',
      '',
      ' ',
      'GET',
      'GET /events',
      'GET /events HTTP/1.1 extra',
      'GET  /events HTTP/1.1',
      'GET /events  HTTP/1.1',
      'GET\t/events\tHTTP/1.1',
      ' GET /events HTTP/1.1',
      'get /events HTTP/1.1',
      'G\u0000ET /events HTTP/1.1',
      'GET /ev ents HTTP/1.1',
      'GET /events HTTP/9.9',
      'GET /events HTTP/2.0',
      'GET /events HTTP/0.9',
      'GET /events HTTP/1.01',
      'GET /events http/1.1',
      'GET /events HTTP/',
      'GET /events HTTP/1.1\u0000',
      'GET events HTTP/1.1',
      'GET * HTTP/1.1',
      'OPTIONS * HTTP/1.1',
      'GET http://evil.example/events HTTP/1.1',
      'GET http://127.0.0.1/events/1 HTTP/1.1',
      'GET //evil.example/events HTTP/1.1',
      'CONNECT evil.example:443 HTTP/1.1',
      'PRI * HTTP/2.0',
      'FOO /events HTTP/1.1',
      'GETT /events HTTP/1.1',
      'GET /events/%00 HTTP/1.1',
      'GET /events/%ZZ HTTP/1.1',
      'GET /events/\u00e9\u00e8 HTTP/1.1',
      'GET /\u{1F600} HTTP/1.1',
      'GET /events/..%2f..%2f HTTP/1.1',
      'GET /events/\u007f HTTP/1.1',
      'GET /events#x HTTP/1.1',
      '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(1000, 8000, 17_000, 70_000)
      .map((n) => `GET /events/${'1'.repeat(n)} HTTP/1.1`),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
)

const badHeaderLines = fc.constantFrom(
  'Bad Header',
  'X Y: z',
  ': empty-name',
  'X-A:',
  ' folded: yes',
  'X-Folded: a\r\n b',
  'X-Nul: a\u0000b',
  'X-Cr: a\rb',
  'X-Lf: a\nb',
  'X-Del: a\u007fb',
  'X-Latin: \u00e9',
  'X-Utf8: \u{1F600}',
  'Host: a, b',
  'Host: evil.example/path',
  'Host:',
  'Host: [::1',
  'Content-Type: application/json',
  'Content-Type: application/json\u0000',
  'Content-Length: abc',
  'Content-Length: -1',
  'Content-Length: 1, 2',
  'Content-Length: +5',
  'Content-Length: 0x10',
  'Content-Length: 99999999999999999999',
  'Content-Length:  3 ',
  'Transfer-Encoding: chunked',
  'Transfer-Encoding: Chunked',
  'Transfer-Encoding: gzip, chunked',
  'Transfer-Encoding: chunked, identity',
  'Transfer-Encoding: xchunked',
  'Transfer-Encoding: identity',
  'Transfer-Encoding : chunked',
  'Transfer-Encoding:\tchunked',
  'Expect: 100-continue',
  'Expect: 200-ok',
  'Upgrade: websocket',
  'Connection: Upgrade',
  'Upgrade: h2c',
  'Connection: keep-alive, close',
  'Authorization: Basic ZWRpdG9yOndyb25n',
  'Authorization: Basic ====',
  'Authorization: Basic',
  'Accept: application/vnd.service.events+json;q=0',
  'If-Match: "v1',
  'X-Request-Id: \u00ff',
)

const chunkedBodies = fc.constantFrom(
  '0\r\n\r\n',
  '2\r\n{}\r\n0\r\n\r\n',
  'zz\r\n{}\r\n0\r\n\r\n',
  '-1\r\n{}\r\n0\r\n\r\n',
  'FFFFFFFFFFFFFFFFFF\r\n{}\r\n0\r\n\r\n',
  '7FFFFFFF\r\n{}',
  '2;ext=\u0000\r\n{}\r\n0\r\n\r\n',
  `2;${'e'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`,
  '2\r\n{}0\r\n\r\n',
  '2\n{}\n0\n\n',
  '3\r\n{}\r\n0\r\n\r\n',
  '1\r\n{\r\n1\r\n}\r\n0\r\nX-Trailer: 1\r\n\r\n',
  '2\r\n{}\r\n',
  '2 \r\n{}\r\n0\r\n\r\n',
  ' 2\r\n{}\r\n0\r\n\r\n',
  '0x2\r\n{}\r\n0\r\n\r\n',
  '\r\n\r\n',
)

const plainBodies = fc.constantFrom(
  '',
  '{}',
  '{"page":1}',
  '{"title":',
  '\u0000\u0000',
  '{"a":1}GET / HTTP/1.1\r\n\r\n',
)

/** One request, more or less malformed. */
const rawRequest = fc
  .tuple(
    requestLine,
    fc.constantFrom('Host: localhost', 'Host: localhost', 'Host: 127.0.0.1:80', ''),
    fc.oneof(
      { weight: 1, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.array(badHeaderLines, { minLength: 1, maxLength: 3 }) },
    ),
    fc.oneof(
      { weight: 7, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: plainBodies.map((b) => ({ kind: 'length' as const, body: b })) },
      { weight: 1, arbitrary: plainBodies.map((b) => ({ kind: 'wrong-length' as const, body: b })) },
      { weight: 3, arbitrary: chunkedBodies.map((b) => ({ kind: 'chunked' as const, body: b })) },
      { weight: 1, arbitrary: chunkedBodies.map((b) => ({ kind: 'chunked+length' as const, body: b })) },
    ),
    fc.oneof(
      { weight: 7, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(100, 1000, 2500, 5000) },
    ),
    fc.constantFrom(crlf, crlf, crlf, crlf, crlf, crlf, crlf, '\n'),
  )
  .map(([line, host, headers, body, count, eol]) => {
    const lines = [line]
    if (host !== '') lines.push(host)
    lines.push(...headers)
    // Absurd header counts: many short lines (Node keeps 2000; the section limit is 16 KiB).
    if (count !== null) for (let i = 0; i < count; i++) lines.push(`X-${i}: ${i}`)
    let payload = ''
    if (body?.kind === 'length') {
      lines.push(`Content-Length: ${Buffer.byteLength(body.body, 'latin1')}`)
      payload = body.body
    } else if (body?.kind === 'wrong-length') {
      lines.push(`Content-Length: ${Buffer.byteLength(body.body, 'latin1') + 7}`)
      payload = body.body
    } else if (body?.kind === 'chunked') {
      lines.push('Transfer-Encoding: chunked')
      payload = body.body
    } else if (body?.kind === 'chunked+length') {
      lines.push('Transfer-Encoding: chunked', `Content-Length: ${body.body.length}`)
      payload = body.body
    }
    if (body !== undefined) lines.push('Content-Type: application/json')
    return lines.join(eol) + eol + eol + payload
  })

export interface RawCase {
  /** The bytes, sent as Latin-1 (each character one byte) except where a string holds more. */
  readonly bytes: Buffer
  /** Split the write at this byte, with a pause between the two parts (parser state across reads). */
  readonly splitAt: number | undefined
  /** Half-close the connection after writing (else wait for the server to close it). */
  readonly halfClose: boolean
}

const toBytes = (text: string) =>
  // Characters above U+00FF go out as UTF-8, the rest byte for byte.
  [...text].some((c) => (c.codePointAt(0) ?? 0) > 0xff)
    ? Buffer.from(text, 'utf8')
    : Buffer.from(text, 'latin1')

export const rawCaseArb: fc.Arbitrary<RawCase> = fc
  .tuple(
    fc.array(rawRequest, { minLength: 1, maxLength: 3 }),
    // Trailing garbage after pipelined requests, in about one case of four.
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.string({ unit: 'binary', maxLength: 30 }),
          fc.constantFrom('\r\n', '\r\n\r\n', 'G'),
        ),
      },
    ),
    // A write split in two, in about one case of three.
    fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat() }),
    fc.boolean(),
    // End with a request that asks to close (two cases of three), so the exchange ends without waiting.
    fc.constantFrom(true, true, false),
  )
  .map(([requests, garbage, split, halfClose, closeLast]) => {
    const parts = requests.map(toBytes)
    if (closeLast)
      parts.push(Buffer.from('GET /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'))
    if (garbage !== null) parts.push(toBytes(garbage))
    const bytes = Buffer.concat(parts)
    return { bytes, splitAt: split === null ? undefined : split % Math.max(1, bytes.length), halfClose }
  })

// --- client -------------------------------------------------------------------------------

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string>
  /** The body bytes as Content-Length delimits them (or up to the close). */
  readonly body: Buffer
  /** Whether the body was cut short by the end of the connection. */
  readonly truncated: boolean
}

export interface RawOutcome {
  readonly responses: RawResponse[]
  /** Bytes after the last whole response that are not a response (undefined when none). */
  readonly trailing: Buffer | undefined
  /** How the exchange ended. */
  readonly end: 'closed' | 'reset' | 'timeout'
}

/**
 * Sends the case on a new connection and reads until the server closes it (or resets it). When the
 * server neither closes nor sends anything for `timeoutMs` (at first) or `idleMs` (once it has
 * answered), the client gives up and closes: a server keeps a connection open after a keep-alive
 * answer, and an incomplete request waits for the rest up to the server's own deadlines.
 */
export function rawSend(
  port: number,
  rawCase: RawCase,
  timeoutMs: number,
  idleMs = 400,
): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let end: RawOutcome['end'] = 'closed'
    const socket = connect(port, '127.0.0.1', () => {
      const { bytes, splitAt } = rawCase
      const finish = () => {
        if (rawCase.halfClose) socket.end()
      }
      if (splitAt === undefined) {
        socket.write(bytes, finish)
      } else {
        socket.write(bytes.subarray(0, splitAt))
        setTimeout(() => {
          if (!socket.destroyed) socket.write(bytes.subarray(splitAt), finish)
        }, 5)
      }
    })
    const giveUp = () => {
      end = 'timeout'
      socket.destroy()
    }
    let timer = setTimeout(giveUp, timeoutMs)
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      clearTimeout(timer)
      timer = setTimeout(giveUp, Math.min(idleMs, timeoutMs))
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // ECONNRESET / EPIPE: the server dropped the connection; what it sent before still counts.
      if (end !== 'timeout') end = 'reset'
      void error
    })
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ ...parseRawResponses(Buffer.concat(chunks)), end })
    })
  })
}

/** Parses HTTP/1.1 responses from bytes, each body by its Content-Length (responses to HEAD are never asked for). */
export function parseRawResponses(data: Buffer): { responses: RawResponse[]; trailing: Buffer | undefined } {
  const responses: RawResponse[] = []
  let at = 0
  while (at < data.length) {
    if (!data.subarray(at, at + 5).equals(Buffer.from('HTTP/'))) break
    const headEnd = data.indexOf('\r\n\r\n', at)
    if (headEnd < 0) break
    const [statusLine = '', ...lines] = data.subarray(at, headEnd).toString('latin1').split('\r\n')
    const status = Number(statusLine.split(' ')[1])
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      const name = line.slice(0, colon).trim().toLowerCase()
      const value = line.slice(colon + 1).trim()
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value
    }
    let bodyStart = headEnd + 4
    // 1xx, 204 and 304 have no body (RFC 9112 §6.3).
    if (status < 200 || status === 204 || status === 304) {
      if (status >= 200) responses.push({ status, headers, body: Buffer.alloc(0), truncated: false })
      at = bodyStart
      continue
    }
    const length = headers['content-length']
    if (length !== undefined) {
      const n = Number(length)
      const body = data.subarray(bodyStart, bodyStart + n)
      responses.push({ status, headers, body, truncated: body.length < n })
      at = bodyStart + body.length
      continue
    }
    // Without Content-Length the body runs to the close (or is chunked, which the suite refuses).
    const body = data.subarray(bodyStart)
    responses.push({ status, headers, body, truncated: false })
    bodyStart = data.length
    at = data.length
  }
  return { responses, trailing: at < data.length ? data.subarray(at) : undefined }
}

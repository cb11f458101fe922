// Slow, oversized and too many connections (CONTRACT.md §6; http/connection-guard.ts): the header
// and request deadlines hold after other traffic has been served (Node 20's own checks were seen
// not to), an idle keep-alive connection is left alone, the size limits are applied while the bytes
// arrive, deep JSON fails cleanly, and one address cannot hold more than its share of connections.
// Run on SQLite only: all of this happens below the routes and never reaches the store.
// Timing: deadlines are set to a few hundred ms; the tests wait for outcomes (the connection closed,
// what it was sent), bounded generously, and never assert how long something took.
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { describe, it } from 'node:test'
import { assertEveryResponse, assertProblem, contractService, jsonHeaders } from '../support/contract.ts'
import { ManualClock } from '../support/manual-clock.ts'
import type { Response } from '../support/service.ts'
import { sqlite } from '../support/stores.ts'

const bodyLimit = 16 * 1024
/** Longest any outcome below is waited for: far beyond the deadlines set, far below Node's 10 s. */
const patienceMs = 5_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A raw TCP connection to the service that records what it is sent and when it closes. */
class RawConnection {
  readonly socket: Socket
  #received = Buffer.alloc(0)
  #closed = false
  #whenClosed: Promise<void>
  bytesSent = 0

  private constructor(socket: Socket) {
    this.socket = socket
    socket.on('data', (chunk: Buffer) => {
      this.#received = Buffer.concat([this.#received, chunk])
    })
    // A reset after the server gave up is one of the outcomes looked for, not a failure.
    socket.on('error', () => {})
    this.#whenClosed = new Promise((resolve) =>
      socket.once('close', () => {
        this.#closed = true
        resolve()
      }),
    )
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)))
      socket.once('error', reject)
    })
  }

  get closed(): boolean {
    return this.#closed
  }

  get text(): string {
    return this.#received.toString('utf8')
  }

  write(data: string | Buffer): void {
    if (this.#closed || this.socket.destroyed) return
    this.bytesSent += Buffer.byteLength(data)
    this.socket.write(data)
  }

  /** Resolves once the server closed the connection; fails if it is still open after `ms`. */
  async closedWithin(ms = patienceMs, what = 'the connection'): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} is still open after ${ms} ms`)), ms)
    })
    try {
      await Promise.race([this.#whenClosed, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  /** Resolves with the responses once `count` whole ones have arrived (or the connection closed). */
  async responses(count: number, ms = patienceMs): Promise<Response[]> {
    const until = Date.now() + ms
    while (Date.now() < until) {
      const parsed = parseResponses(this.#received)
      if (parsed.length >= count || this.#closed) return parsed
      await sleep(10)
    }
    throw new Error(`no ${count} responses after ${ms} ms: ${JSON.stringify(this.text.slice(0, 200))}`)
  }

  close(): void {
    this.socket.destroy()
  }
}

/** The whole responses in `data` (a trailing partial one is left out). */
function parseResponses(data: Buffer): Response[] {
  const responses: Response[] = []
  let rest = data
  for (;;) {
    const end = rest.indexOf('\r\n\r\n')
    if (end < 0 || !rest.subarray(0, 5).equals(Buffer.from('HTTP/'))) return responses
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'] ?? 0)
    if (rest.length < end + 4 + length) return responses
    const text = rest.subarray(end + 4, end + 4 + length).toString('utf8')
    rest = rest.subarray(end + 4 + length)
    responses.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      text,
      json: () => JSON.parse(text),
      header: (name) => headers[name.toLowerCase()],
    })
  }
}

/** The one answer on a connection the server closed: a problem of this status, checked as every response is. */
async function onlyAnswer(connection: RawConnection, status: number, where: string): Promise<Response> {
  await connection.closedWithin(patienceMs, where)
  const responses = await connection.responses(1)
  assert.equal(responses.length, 1, `${where}: exactly one response, got ${JSON.stringify(connection.text)}`)
  const [res] = responses as [Response]
  assertProblem(res, status)
  assertEveryResponse('(raw)', where, res)
  assert.equal(res.header('connection'), 'close', `${where}: the answer says the connection closes`)
  return res
}

const get = (path: string, fields = '') => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${fields}\r\n`

describe('[sqlite] slow clients: the header and request deadlines, after other traffic', () => {
  const ctx = contractService(sqlite, {
    settings: { headersTimeoutMs: '300', requestTimeoutMs: '600' },
    location: false,
  })

  /** Requests served first, on pooled keep-alive connections and on one closed after its answer. */
  async function otherTraffic() {
    for (let i = 0; i < 3; i++) assert.equal((await ctx.http('GET', '/health/live')).status, 200)
    const done = await RawConnection.open(ctx.service.port)
    done.write(get('/health/live', 'Connection: close\r\n'))
    await done.closedWithin()
    assert.equal((await done.responses(1))[0]?.status, 200)
  }

  it('answers 408 and closes a connection whose headers stop half-way', async () => {
    await otherTraffic()
    const slow = await RawConnection.open(ctx.service.port)
    slow.write('GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: applica')
    await onlyAnswer(slow, 408, 'headers that stop half-way')
  })

  it('closes a connection whose body keeps trickling in, a byte at a time, at the request deadline', async () => {
    await otherTraffic()
    const body = JSON.stringify({ page: 1 }).padEnd(1000, ' ')
    const slow = await RawConnection.open(ctx.service.port)
    slow.write(
      'GET /events HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${body.length}\r\n\r\n`,
    )
    let sent = 0
    const trickle = setInterval(() => slow.write(body[sent++] ?? ''), 20)
    try {
      await slow.closedWithin(patienceMs, 'a trickling body')
    } finally {
      clearInterval(trickle)
    }
    assert.ok(sent < body.length, `closed before the body was complete (${sent} of ${body.length} bytes)`)
    // The 408 is written as the connection is cut; a byte sent just then may reset the connection
    // first, so the answer is checked when it arrived.
    const responses = await slow.responses(1)
    assert.ok(responses.length <= 1, `at most one answer: ${JSON.stringify(slow.text)}`)
    if (responses[0]) assertProblem(responses[0], 408)
  })

  it('answers 408 when the whole body does not arrive in time', async () => {
    await otherTraffic()
    const slow = await RawConnection.open(ctx.service.port)
    slow.write(
      'GET /events HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Content-Length: 100\r\n\r\n{"page":',
    )
    await onlyAnswer(slow, 408, 'a body that stops')
  })

  it('still serves after cutting slow clients off', async () => {
    assert.equal((await ctx.http('GET', '/health/live')).status, 200)
  })
})

describe('[sqlite] an idle keep-alive connection, on a clock the test moves', () => {
  // The guard's clock moves only when the test says so: three header deadlines of silence pass
  // without waiting for them (and within Node's own keep-alive timeout, 5 s, which stays real).
  const clock = new ManualClock()
  const ctx = contractService(sqlite, {
    settings: { headersTimeoutMs: '300', requestTimeoutMs: '600' },
    location: false,
    connectionClock: clock,
  })

  it('is left alone, and its next request is held to the header deadline', async () => {
    const connection = await RawConnection.open(ctx.service.port)
    connection.write(get('/health/live'))
    assert.equal((await connection.responses(1))[0]?.status, 200)
    const answered = connection.text
    for (let deadline = 0; deadline < 3; deadline++) clock.advance(300)
    // A connection the guard closed would have its close on the way by the next turn.
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(
      connection.closed,
      false,
      'an idle keep-alive connection is not closed by the header deadline',
    )
    assert.equal(connection.text, answered, 'nothing is written into an idle connection')
    connection.write(get('/health/live'))
    const [, second] = await connection.responses(2)
    assert.equal(second?.status, 200, 'the next request on it is served')
    // The deadline is re-armed for the request after that: half its headers, then nothing. The
    // guard sees its first bytes at one check and holds it to the deadline from there.
    connection.write('GET /health/live HTTP/1.1\r\nHost: loc')
    for (let step = 0; step < 1_000 && !connection.closed; step++) {
      clock.advance(100)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    await connection.closedWithin(patienceMs, 'the third, stalled request')
    const responses = await connection.responses(3)
    assert.equal(responses.length, 3, JSON.stringify(connection.text))
    assertProblem(responses[2] as Response, 408)
  })
})

describe('[sqlite] size limits apply while the bytes arrive', () => {
  const ctx = contractService(sqlite, { location: false })

  it('refuses a Content-Length over BODY_LIMIT with 413 before reading any of the body', async () => {
    const connection = await RawConnection.open(ctx.service.port)
    connection.write(
      'POST /events HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Authorization: ${ctx.service.editorAuth}\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`,
    )
    // Not one byte of the announced 10 MB is sent: the answer can only come from the length.
    await onlyAnswer(connection, 413, 'Content-Length: 10 MB, no body sent')
  })

  it('refuses a chunked body with 413 once BODY_LIMIT is passed, though the body never ends', async () => {
    const connection = await RawConnection.open(ctx.service.port)
    connection.write(
      'GET /events HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Transfer-Encoding: chunked\r\n\r\n',
    )
    const chunk = ' '.repeat(1024)
    // One KiB more than the limit, in 1 KiB chunks, and no last chunk: the body is never complete,
    // so a 413 proves the limit is counted as the bytes arrive, not after the body is buffered.
    for (let i = 0; i < bodyLimit / 1024 + 1; i++) connection.write(`400\r\n${chunk}\r\n`)
    await onlyAnswer(connection, 413, 'an endless chunked body')
    assert.ok(connection.bytesSent < bodyLimit + 4 * 1024, `sent ${connection.bytesSent} bytes in all`)
  })

  it('refuses a header section over MAX_HEADER_SIZE with 431 before it ends', async () => {
    const connection = await RawConnection.open(ctx.service.port)
    // 20 KiB of one header field and no blank line: the section never ends.
    connection.write(`GET /events HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20 * 1024)}`)
    await onlyAnswer(connection, 431, 'an endless header section')
  })

  it('answers the deepest JSON that fits in BODY_LIMIT cleanly, never with a 5xx', async () => {
    const arrays = 8000
    const objects = Math.floor((bodyLimit - 1) / 6)
    const bodies = {
      [`${arrays} nested arrays`]: `${'['.repeat(arrays)}${']'.repeat(arrays)}`,
      [`${objects} nested objects`]: `${'{"a":'.repeat(objects)}1${'}'.repeat(objects)}`,
      'unclosed arrays to the limit': '['.repeat(bodyLimit),
      [`${arrays} nested arrays as a field`]: `{"title":${'['.repeat(arrays - 1)}${']'.repeat(arrays - 1)},"date":"2026-12-04T19:30:00Z","location_id":1}`,
    }
    for (const [what, body] of Object.entries(bodies)) {
      assert.ok(Buffer.byteLength(body) <= bodyLimit, `${what} fits in the limit`)
      const write = await ctx.http('POST', '/events', { headers: jsonHeaders(ctx.service.editorAuth), body })
      assert.ok([400, 422].includes(write.status), `POST with ${what}: ${write.status} ${write.text}`)
      const read = await ctx.http('GET', '/events', { headers: jsonHeaders(), body })
      assert.ok([400, 422].includes(read.status), `GET with ${what}: ${read.status} ${read.text}`)
    }
    assert.equal((await ctx.http('GET', '/health/live')).status, 200)
  })
})

describe('[sqlite] connections per client address (MAX_CONNECTIONS_PER_ADDRESS)', () => {
  const cap = 3
  const ctx = contractService(sqlite, {
    settings: { maxConnectionsPerAddress: String(cap) },
    location: false,
  })

  it('refuses the connection over the cap with 429 and Retry-After, and takes a new one once one closes', async () => {
    // Opened one after the other: the server accepts them in that order, before the next.
    const held: RawConnection[] = []
    for (let i = 0; i < cap; i++) held.push(await RawConnection.open(ctx.service.port))
    try {
      const over = await RawConnection.open(ctx.service.port)
      over.write(get('/health/live'))
      const res = await onlyAnswer(over, 429, 'the connection over the cap')
      assert.match(res.header('retry-after') ?? '', /^[1-9]\d*$/, 'Retry-After in seconds')

      // The refused connection was not counted: once one held connection closes, one more fits.
      held.shift()?.close()
      let served: Response | undefined
      for (let attempt = 0; attempt < 50 && served?.status !== 200; attempt++) {
        const next = await RawConnection.open(ctx.service.port)
        next.write(get('/health/live', 'Connection: close\r\n'))
        await next.closedWithin()
        served = (await next.responses(1))[0]
        if (served?.status !== 200) await sleep(20)
      }
      assert.equal(served?.status, 200, 'a new connection is served once one has closed')
    } finally {
      for (const connection of held) connection.close()
    }
  })
})

describe('[sqlite] the connection cap spares trusted proxies (TRUST_PROXY)', () => {
  const ctx = contractService(sqlite, {
    settings: { maxConnectionsPerAddress: '1', trustProxy: '127.0.0.1' },
    location: false,
  })

  it('serves more connections than the cap from a trusted proxy', async () => {
    const held = await RawConnection.open(ctx.service.port)
    try {
      const second = await RawConnection.open(ctx.service.port)
      second.write(get('/health/live', 'Connection: close\r\n'))
      await second.closedWithin()
      assert.equal((await second.responses(1))[0]?.status, 200)
    } finally {
      held.close()
    }
  })
})

// HTTP/2 over TLS (src/http/http2-server.ts): with TLS_CERT/TLS_KEY, ALPN offers h2 and
// http/1.1; the contract's core cases answer the same over both (Node's http2 client, and curl
// --http2); many change feeds share one connection; the limits hold (a cap on concurrent streams,
// the header deadline, the body limit, connections per address) and a rapid-reset flood
// (CVE-2023-44487) leaves the process serving. Plain HTTP stays HTTP/1.1.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { type ClientHttp2Session, connect as h2connect } from 'node:http2'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { connect as tlsConnect } from 'node:tls'
import { promisify } from 'node:util'
import { gunzipSync } from 'node:zlib'
import { Agent, request } from 'undici'
import { type Certificate, makeCertificate } from '../support/certificates.ts'
import {
  errorCodeOf,
  errorCodes,
  frameTypes,
  getHeaders,
  maxConcurrentStreams,
  rawSession,
  rstStream,
} from '../support/h2-frames.ts'
import { startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const run = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), 'ers-h2-'))
after(() => rmSync(dir, { recursive: true, force: true }))
const certificate: Certificate = makeCertificate(dir)
const ca = readFileSync(certificate.cert, 'utf8')
const tls = { tlsCert: certificate.cert, tlsKey: certificate.key }

const types = {
  api: 'application/vnd.service.api+json',
  event: 'application/vnd.service.event+json',
  events: 'application/vnd.service.events+json',
  problem: 'application/problem+json',
}

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
}

/** One request on an HTTP/2 session; the body decoded from gzip when it came so. */
function h2(
  session: ClientHttp2Session,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(
      { ':method': method, ':path': path, ...headers },
      { endStream: body === undefined },
    )
    const chunks: Buffer[] = []
    let answer: Record<string, string | string[] | undefined> = {}
    stream.on('response', (fields) => {
      answer = fields as typeof answer
    })
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('error', reject)
    stream.on('end', () => {
      const bytes = Buffer.concat(chunks)
      resolve({
        status: Number(answer[':status']),
        headers: answer,
        text: (answer['content-encoding'] === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8'),
      })
    })
    if (body !== undefined) stream.end(body)
  })
}

/** The same request over HTTP/1.1 (undici, TLS). */
async function h1(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const res = await request(`https://127.0.0.1:${port}${path}`, {
    dispatcher: agent,
    method: method as 'GET',
    headers,
    ...(body !== undefined && { body }),
  })
  const bytes = Buffer.from(await res.body.arrayBuffer())
  return {
    status: res.statusCode,
    headers: res.headers,
    text: (res.headers['content-encoding'] === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8'),
  }
}

const session = (port: number) => h2connect(`https://localhost:${port}`, { ca })
const closeSession = (s: ClientHttp2Session) => new Promise<void>((resolve) => s.close(() => resolve()))

/** The protocol ALPN settles on when the client offers `protocols`. */
function alpn(port: number, protocols: string[] | undefined): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(
      {
        host: '127.0.0.1',
        port,
        servername: 'localhost',
        ca,
        ...(protocols && { ALPNProtocols: protocols }),
      },
      () => {
        resolve(socket.alpnProtocol ?? false)
        socket.end()
      },
    )
    socket.once('error', reject)
  })
}

for (const target of storeTargets) {
  describe(`[${target.name}] HTTP/2 over TLS`, () => {
    let service: TestService
    let agent: Agent
    before(async () => {
      service = await startService(target, {
        ...tls,
        http2MaxConcurrentStreams: '8',
        bodyLimit: '4096',
        feedHeartbeatMs: '100000',
      })
      agent = new Agent({ connect: { ca } })
    })
    after(async () => {
      await agent.close()
      await service.close()
    })

    it('offers h2 and http/1.1 by ALPN; a client without ALPN speaks HTTP/1.1', async () => {
      assert.equal(await alpn(service.port, ['h2', 'http/1.1']), 'h2')
      assert.equal(await alpn(service.port, ['http/1.1']), 'http/1.1')
      assert.equal(await alpn(service.port, undefined), false)
      const res = await h1(agent, service.port, 'GET', '/', { accept: types.api })
      assert.equal(res.status, 200)
    })

    it('answers the core cases as over HTTP/1.1: status, body and the fields of every answer', async () => {
      const s = session(service.port)
      try {
        const auth = { authorization: service.editorAuth }
        const json = { ...auth, 'content-type': 'application/json', accept: types.event }
        const hall = await service.store.createLocation({ name: 'Hall', address: 'Street 1' })
        const fields = { title: 'Over HTTP/2', date: '2027-03-01T18:00:00Z' }
        const body = JSON.stringify(fields)
        const created = await h2(
          s,
          'POST',
          '/events',
          json,
          JSON.stringify({ ...fields, location_id: hall.id }),
        )
        assert.equal(created.status, 201, created.text)
        const location = String(created.headers.location)
        const event = JSON.parse(created.text) as { id: number }
        assert.equal(location, `/events/${event.id}`)
        const etag = String(created.headers.etag)
        const cases: [string, string, Record<string, string>, string?][] = [
          ['GET', '/', { accept: types.api }],
          ['GET', location, { accept: types.event }],
          ['HEAD', location, { accept: types.event }],
          ['GET', location, { accept: types.event, 'if-none-match': etag }],
          ['GET', location, { accept: 'text/html' }],
          ['GET', '/events?per_page=5', { accept: types.events }],
          ['GET', '/events?per_page=5', { accept: types.events, 'accept-encoding': 'gzip' }],
          ['GET', '/events/987654321', { accept: types.event }],
          ['GET', location, { accept: 'image/png' }],
          ['PUT', location, { ...json, 'if-match': '"v999"' }, body],
          ['DELETE', '/events/987654321', auth],
          ['POST', '/events', json, JSON.stringify({ title: 'x'.repeat(5000) })],
          ['POST', '/events', { 'content-type': 'application/json' }, body],
        ]
        for (const [method, path, headers, sent] of cases) {
          const where = `${method} ${path} ${JSON.stringify(headers)}`
          const over2 = await h2(s, method, path, headers, sent)
          const over1 = await h1(agent, service.port, method, path, headers, sent)
          assert.equal(over2.status, over1.status, where)
          assert.equal(over2.text, over1.text, where)
          for (const field of [
            'content-type',
            'etag',
            'vary',
            'content-encoding',
            'cache-control',
            'x-content-type-options',
            'strict-transport-security',
            'allow',
            'www-authenticate',
          ]) {
            assert.equal(over2.headers[field], over1.headers[field], `${where}: ${field}`)
          }
          assert.ok(over2.headers['x-request-id'], where)
          assert.equal(over2.headers.connection, undefined, where)
        }
        const put = await h2(s, 'PUT', location, { ...json, 'if-match': etag }, body)
        assert.equal(put.status, 200, put.text)
        assert.equal(
          (await h2(s, 'DELETE', location, { ...auth, 'if-match': String(put.headers.etag) })).status,
          204,
        )
        assert.equal((await h2(s, 'GET', location, { accept: types.event })).status, 404)
        // The body limit: 413, as over HTTP/1.1.
        const big = await h2(s, 'POST', '/events', json, JSON.stringify({ title: 'y'.repeat(8000) }))
        assert.equal(big.status, 413, big.text)
      } finally {
        await closeSession(s)
      }
    })

    it('streams several change feeds on one connection, each getting every change at once', async () => {
      const s = session(service.port)
      try {
        const feeds = [0, 1, 2].map(() => {
          const stream = s.request({
            ':path': '/events',
            accept: 'text/event-stream',
            'accept-encoding': 'gzip',
          })
          const feed = { stream, text: '', headers: {} as Record<string, unknown> }
          stream.setEncoding('utf8')
          stream.on('response', (fields) => {
            feed.headers = fields
          })
          stream.on('data', (chunk: string) => {
            feed.text += chunk
          })
          return feed
        })
        const until = async (holds: () => boolean) => {
          while (!holds()) await new Promise((resolve) => setTimeout(resolve, 10))
        }
        await until(() => feeds.every((f) => f.text.includes('change feed of /events')))
        for (const feed of feeds) {
          assert.equal(feed.headers[':status'], 200)
          assert.equal(feed.headers['content-type'], 'text/event-stream')
          assert.equal(feed.headers['content-encoding'], undefined)
        }
        const location = await service.store.createLocation({ name: 'Feed hall', address: 'Street 2' })
        for (const title of ['first', 'second']) {
          const created = await service.store.createEvent({
            title,
            date: Date.UTC(2027, 1, 1),
            locationId: location.id,
          })
          await until(() => feeds.every((f) => f.text.includes(`"id":${created.id},`)))
        }
        for (const feed of feeds) feed.stream.close()
      } finally {
        await closeSession(s)
      }
    })

    it('holds each connection to HTTP2_MAX_CONCURRENT_STREAMS', async () => {
      // Node's client sends the ninth feed's request at once: the server refuses it
      // (REFUSED_STREAM), or the client itself once it has the server's SETTINGS; the eight go on.
      const s = session(service.port)
      try {
        const answered: number[] = []
        const refused: number[] = []
        const streams = Array.from({ length: 9 }, (_, i) => {
          const stream = s.request({ ':path': '/events', accept: 'text/event-stream' })
          stream.on('response', () => answered.push(i))
          stream.on('error', () => {})
          stream.on('close', () => {
            if (!answered.includes(i)) refused.push(stream.rstCode ?? -1)
          })
          return stream
        })
        const until = async (holds: () => boolean) => {
          while (!holds()) await new Promise((resolve) => setTimeout(resolve, 10))
        }
        await until(() => answered.length === 8 && refused.length === 1)
        assert.ok(!answered.includes(8), `answered: ${answered}`)
        assert.ok([7, 11].includes(refused[0] as number), `RST_STREAM code ${refused[0]}`)
        assert.equal(s.remoteSettings.maxConcurrentStreams, 8)
        for (const stream of streams) stream.close()
      } finally {
        s.destroy()
      }
      // One that does not is refused: a stream error, or (nghttp2, once the SETTINGS are
      // acknowledged) GOAWAY with PROTOCOL_ERROR.
      const raw = await rawSession(service.port, ca)
      try {
        assert.equal(maxConcurrentStreams(raw.frames), 8)
        const ids = Array.from({ length: 9 }, (_, i) => 1 + 2 * i)
        raw.write(Buffer.concat(ids.map((id) => getHeaders(id, '/events', 'text/event-stream'))))
        const refusal = await raw.frame(
          (f) => (f.type === frameTypes.rstStream && f.stream === 17) || f.type === frameTypes.goaway,
        )
        assert.ok(
          [errorCodes.refusedStream, errorCodes.protocolError].includes(errorCodeOf(refusal) as 1 | 7),
          `error code ${errorCodeOf(refusal)}`,
        )
      } finally {
        raw.socket.destroy()
      }
    })

    it('survives a rapid-reset flood (CVE-2023-44487) and goes on serving', async () => {
      const raw = await rawSession(service.port, ca)
      let stream = 1
      try {
        for (let round = 0; round < 20 && !raw.socket.destroyed; round++) {
          const burst: Buffer[] = []
          for (let i = 0; i < 500; i++, stream += 2) {
            burst.push(getHeaders(stream, '/events/1', types.event), rstStream(stream))
          }
          raw.write(Buffer.concat(burst))
          await new Promise((resolve) => setImmediate(resolve))
        }
        // nghttp2 ends such a session with GOAWAY once its reset budget is spent.
        const goaway = await raw.frame((f) => f.type === frameTypes.goaway).catch(() => undefined)
        if (goaway)
          console.log(`# rapid reset: GOAWAY after ${stream >> 1} streams, code ${errorCodeOf(goaway)}`)
      } finally {
        raw.socket.destroy()
      }
      const s = session(service.port)
      try {
        assert.equal((await h2(s, 'GET', '/', { accept: types.api })).status, 200)
      } finally {
        await closeSession(s)
      }
    })

    it('answers over curl --http2 as over curl --http1.1', async () => {
      const curl = async (version: string) => {
        const { stdout } = await run('curl', [
          '-sS',
          version,
          '--cacert',
          certificate.cert,
          '-H',
          `accept: ${types.api}`,
          '-w',
          '\n%{http_version} %{http_code}',
          `https://localhost:${service.port}/`,
        ])
        return stdout
      }
      const over2 = await curl('--http2')
      const over1 = await curl('--http1.1')
      assert.match(over2, /\n2 200$/)
      assert.match(over1, /\n1\.1 200$/)
      assert.equal(over2.replace(/\n.*$/, ''), over1.replace(/\n.*$/, ''))
    })
  })
}

describe('HTTP/2 sessions: deadlines and connections per address', () => {
  const [target] = storeTargets
  let service: TestService
  before(async () => {
    if (!target) throw new Error('no store')
    service = await startService(target, {
      ...tls,
      headersTimeoutMs: '300',
      requestTimeoutMs: '600',
      maxConnectionsPerAddress: '3',
    })
  })
  after(() => service.close())

  it('closes a session that starts no request within HEADERS_TIMEOUT_MS', async () => {
    const raw = await rawSession(service.port, ca)
    await raw.closed
    assert.ok(raw.frames.some((f) => f.type === frameTypes.goaway))
  })

  it('answers 408 to a request whose body does not arrive within REQUEST_TIMEOUT_MS', async () => {
    const s = session(service.port)
    try {
      const answer = await new Promise<Answer>((resolve, reject) => {
        const stream = s.request({
          ':method': 'POST',
          ':path': '/events',
          'content-type': 'application/json',
          authorization: service.editorAuth,
        })
        stream.write('{"title":')
        let status = 0
        let text = ''
        stream.on('response', (fields) => {
          status = Number(fields[':status'])
        })
        stream.setEncoding('utf8')
        stream.on('data', (chunk: string) => {
          text += chunk
        })
        stream.on('close', () => resolve({ status, headers: {}, text }))
        stream.on('error', reject)
      })
      assert.equal(answer.status, 408, answer.text)
    } finally {
      s.destroy()
    }
  })

  it('refuses a connection over MAX_CONNECTIONS_PER_ADDRESS before its handshake', async () => {
    const sessions = [0, 1, 2].map(() => session(service.port))
    try {
      for (const s of sessions) assert.equal((await h2(s, 'GET', '/', { accept: types.api })).status, 200)
      const fourth = session(service.port)
      const failed = await new Promise<boolean>((resolve) => {
        fourth.once('error', () => resolve(true))
        fourth.once('connect', () => resolve(false))
      })
      fourth.destroy()
      assert.equal(failed, true)
    } finally {
      for (const s of sessions) s.destroy()
    }
  })

  it('speaks HTTP/1.1 only over plain HTTP', async () => {
    const target2 = storeTargets[0]
    if (!target2) return
    const plain = await startService(target2)
    try {
      const { stdout } = await run('curl', [
        '-sS',
        '--http2',
        '-H',
        `accept: ${types.api}`,
        '-o',
        '/dev/null',
        '-w',
        '%{http_version} %{http_code}',
        `http://127.0.0.1:${plain.port}/`,
      ])
      assert.equal(stdout, '1.1 200')
    } finally {
      await plain.close()
    }
  })
})

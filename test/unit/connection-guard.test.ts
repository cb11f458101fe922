// The connection guard on bare node:http and node:https servers whose own header and request
// checks are off (headersTimeout and requestTimeout 0): whatever Node does or fails to do, the
// guard alone keeps the deadlines, leaves idle keep-alive connections alone and caps connections
// per address. Deadlines are a few hundred ms; the tests wait for outcomes, never measure time.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createSecureServer } from 'node:https'
import { connect as connectTcp, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { connect as connectTls } from 'node:tls'
import { guardConnections } from '../../src/http/connection-guard.ts'
import { ManualClock } from '../support/manual-clock.ts'

const deadlines = { headersTimeoutMs: 300, requestTimeoutMs: 600 }
const patienceMs = 5_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A socket that records what it receives and whether it was closed. */
function watch(socket: Socket) {
  const seen = { text: '', closed: false, secured: false }
  socket.on('data', (chunk: Buffer) => {
    seen.text += chunk.toString('utf8')
  })
  socket.on('error', () => {})
  socket.on('secureConnect', () => {
    seen.secured = true
  })
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      seen.closed = true
      resolve()
    }),
  )
  const closedWithin = async (what: string) => {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      closed,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: still open after ${patienceMs} ms`)), patienceMs)
      }),
    ]).finally(() => clearTimeout(timer))
  }
  const received = async (pattern: RegExp) => {
    for (let waited = 0; !pattern.test(seen.text); waited += 10) {
      if (waited > patienceMs || seen.closed) assert.match(seen.text, pattern)
      await sleep(10)
    }
  }
  return { socket, seen, closedWithin, received }
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  return typeof address === 'object' && address ? address.port : 0
}

const ok = (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => {
  request.resume()
  request.on('end', () => response.end('ok'))
}

describe('connection guard on a node:http server with its own timeouts off', () => {
  const server = createServer({ headersTimeout: 0, requestTimeout: 0 }, ok)
  guardConnections(server, { ...deadlines, maxConnectionsPerAddress: 2 })
  const port = listen(server)
  const open = async () => {
    const socket = connectTcp(await port, '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    return watch(socket)
  }
  after(() => {
    server.closeAllConnections()
    server.close()
  })

  it('answers 408 to headers that stop half-way, after requests were served', async () => {
    const served = await open()
    served.socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    await served.closedWithin('a served request')
    assert.match(served.seen.text, /^HTTP\/1\.1 200/)
    const slow = await open()
    slow.socket.write('GET / HTTP/1.1\r\nHost: x\r\nAcc')
    await slow.closedWithin('half the headers')
    assert.match(slow.seen.text, /^HTTP\/1\.1 408 Request Timeout\r\n/)
    assert.match(slow.seen.text, /\r\nContent-Type: application\/problem\+json\r\n/)
  })

  it('cuts a body that trickles in at the request deadline', async () => {
    const slow = await open()
    slow.socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n')
    let sent = 0
    const trickle = setInterval(() => {
      if (!slow.seen.closed) slow.socket.write('x', () => sent++)
    }, 20)
    await slow.closedWithin('a trickling body').finally(() => clearInterval(trickle))
    assert.ok(sent < 1000, `closed before the body was complete (${sent} bytes)`)
  })

  it('closes a connection that never sends a byte without answering it', async () => {
    const silent = await open()
    await silent.closedWithin('a silent connection')
    assert.equal(silent.seen.text, '')
  })

  it('writes nothing into an idle keep-alive connection and serves its next request', async () => {
    // A server of its own whose guard reads a clock the test moves: three header deadlines of
    // silence pass at once, not after 900 ms of real time.
    const clock = new ManualClock()
    const idle = createServer({ headersTimeout: 0, requestTimeout: 0 }, ok)
    guardConnections(idle, { ...deadlines, maxConnectionsPerAddress: 0, clock })
    const socket = connectTcp(await listen(idle), '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    const connection = watch(socket)
    try {
      connection.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
      await connection.received(/^HTTP\/1\.1 200[\s\S]*ok$/)
      const answered = connection.seen.text
      for (let deadline = 0; deadline < 3; deadline++) clock.advance(deadlines.headersTimeoutMs)
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(connection.seen.text, answered)
      assert.equal(connection.seen.closed, false)
      connection.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
      await connection.received(/ok[\s\S]*HTTP\/1\.1 200[\s\S]*ok$/)
      connection.socket.write('GET / HTTP/1.1\r\nHo')
      for (let step = 0; step < 1_000 && !connection.seen.closed; step++) {
        clock.advance(deadlines.headersTimeoutMs / 3)
        await sleep(5)
      }
      await connection.closedWithin('a stalled third request')
      assert.match(connection.seen.text, /HTTP\/1\.1 408 Request Timeout/)
    } finally {
      idle.closeAllConnections()
      idle.close()
    }
  })

  it('refuses a connection over the cap with 429 and lets a new one in once one closes', async () => {
    const held = [await open(), await open()]
    // Both are counted once the server has answered on them.
    for (const connection of held) {
      connection.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
      await connection.received(/ok$/)
    }
    const over = await open()
    over.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    await over.closedWithin('the connection over the cap')
    assert.match(over.seen.text, /^HTTP\/1\.1 429 Too Many Requests\r\n[\s\S]*\r\nRetry-After: \d+\r\n/)
    held[0]?.socket.destroy()
    let text = ''
    for (let attempt = 0; attempt < 50 && !text.startsWith('HTTP/1.1 200'); attempt++) {
      const next = await open()
      next.socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
      await next.closedWithin('a later connection')
      text = next.seen.text
    }
    assert.match(text, /^HTTP\/1\.1 200/)
    held[1]?.socket.destroy()
  })
})

describe('connection guard on a node:https server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ers-guard-'))
  const cert = join(dir, 'cert.pem')
  const key = join(dir, 'key.pem')
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'],
      ...['-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ...['-keyout', key, '-out', cert],
    ],
    { stdio: 'ignore' },
  )
  const ca = readFileSync(cert, 'utf8')
  const server = createSecureServer(
    { headersTimeout: 0, requestTimeout: 0, cert: ca, key: readFileSync(key, 'utf8') },
    ok,
  )
  guardConnections(server as unknown as Server, { ...deadlines, maxConnectionsPerAddress: 1 })
  const port = listen(server as unknown as Server)
  const open = async () => {
    const socket = connectTls({ port: await port, host: '127.0.0.1', ca })
    return watch(socket)
  }
  after(() => {
    server.closeAllConnections()
    server.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers 408 over TLS to headers that stop half-way, and closes a connection over the cap before the handshake', async () => {
    const slow = await open()
    await new Promise((resolve) => slow.socket.once('secureConnect', resolve))
    slow.socket.write('GET / HTTP/1.1\r\nHost: x\r\n')
    // While it is held open, a second connection from the same address is over the cap of 1.
    const over = await open()
    await over.closedWithin('the TLS connection over the cap')
    assert.equal(over.seen.secured, false, 'closed before the handshake')
    await slow.closedWithin('half the headers over TLS')
    assert.match(slow.seen.text, /^HTTP\/1\.1 408 Request Timeout\r\n/)
    assert.match(slow.seen.text, /\r\nStrict-Transport-Security: /)
  })
})

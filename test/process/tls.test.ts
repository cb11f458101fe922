// HTTPS served by the service itself (TLS_CERT, TLS_KEY; CONTRACT.md §4): every answer over TLS
// carries Strict-Transport-Security (RFC 6797 §7.1) and none over plain HTTP (§7.2); SIGHUP serves
// a renewed certificate to new connections while open ones go on; a file that cannot be served
// stops start-up with one plain line. Only TLS 1.2 with ECDHE and AEAD suites, and TLS 1.3, are
// offered (TLS_CIPHERS, TLS_MIN_VERSION), also after a reload; plain HTTP sent to the HTTPS port
// gets a 400 problem saying to use https://. Certificates are made for each run with openssl.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { connect as tcpConnect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  type ConnectionOptions,
  type TLSSocket,
  type Server as TlsServer,
  connect as tlsConnect,
} from 'node:tls'
import type { FastifyInstance } from 'fastify'
import { Agent, request } from 'undici'
import { reloadTls } from '../../src/http/tls.ts'
import { tlsPolicy } from '../../src/http/tls-policy.ts'
import { makeCertificate as makeCertificateIn } from '../support/certificates.ts'
import { runServerToExit, type SpawnedServer, spawnServer } from '../support/process.ts'
import { readResponse, startService, type TestService } from '../support/service.ts'
import { type StoreTarget, storeTargets } from '../support/stores.ts'

const dir = mkdtempSync(join(tmpdir(), 'ers-tls-'))
after(() => rmSync(dir, { recursive: true, force: true }))

/** Numbers the databases of this file. */
let made = 0
/** A new self-signed certificate (P-256, or RSA) for localhost and 127.0.0.1, valid for a day. */
const makeCertificate = (commonName?: string, keyType?: 'ec' | 'rsa') =>
  makeCertificateIn(dir, commonName, keyType)

/** The fingerprint of the certificate a new TLS connection is given. */
function certificateOnNewConnection(port: number, ca: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, servername: 'localhost', ca }, () => {
      resolve(socket.getPeerCertificate().fingerprint256)
      socket.end()
    })
    socket.once('error', reject)
  })
}

/** Resolves once the server has printed a line matching `pattern` after `from` characters of output. */
function logged(server: SpawnedServer, pattern: RegExp, from = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const line = server
        .output()
        .slice(from)
        .split('\n')
        .find((l) => pattern.test(l))
      if (line !== undefined) {
        server.child.stdout?.off('data', look)
        resolve(line)
      }
    }
    server.child.stdout?.on('data', look)
    look()
    void server.exited.then(({ code }) =>
      reject(new Error(`server exited (${code}):\n${server.output()}${server.errors()}`)),
    )
  })
}

describe('HTTPS through startService', () => {
  // TLS sits below routing and storage: one store (SQLite, always present) is enough here.
  const target = storeTargets[0] as StoreTarget
  const certificate = makeCertificate()
  const dispatcher = new Agent({ connect: { ca: certificate.pem } })
  let service: TestService
  let plain: TestService
  before(async () => {
    service = await startService(target, {
      tlsCert: certificate.cert,
      tlsKey: certificate.key,
    })
    plain = await startService(target)
  })
  after(async () => {
    await dispatcher.close()
    await service?.close()
    await plain?.close()
  })
  const https = async (method: string, path: string, headers: Record<string, string> = {}) =>
    readResponse(
      await request(`https://127.0.0.1:${service.port}${path}`, {
        method: method as 'GET',
        headers,
        dispatcher,
      }),
    )

  it('serves HTTPS with the certificate of TLS_CERT', async () => {
    assert.equal(
      await certificateOnNewConnection(service.port, [certificate.pem]),
      certificate.fingerprint256,
    )
    const res = await https('GET', '/health/live')
    assert.equal(res.status, 200)
  })

  it('sends Strict-Transport-Security and nosniff on every answer over TLS: 200, 204, 304, 404, 405', async () => {
    const events = await https('GET', '/events')
    const etag = events.header('etag') as string
    for (const [status, method, path, headers] of [
      [200, 'GET', '/events', {}],
      [204, 'OPTIONS', '/events', {}],
      [304, 'GET', '/events', { 'if-none-match': etag }],
      [404, 'GET', '/no/such/path', {}],
      [405, 'DELETE', '/events', { authorization: service.editorAuth }],
    ] as const) {
      const res = await https(method, path, headers)
      assert.equal(res.status, status, `${method} ${path}: ${res.text}`)
      assert.equal(res.header('strict-transport-security'), 'max-age=31536000', `${method} ${path}`)
      assert.equal(res.header('x-content-type-options'), 'nosniff', `${method} ${path}`)
    }
  })

  it('sends Strict-Transport-Security with the 400 written straight to a TLS socket for a request that is not HTTP', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      let text = ''
      const socket = tlsConnect(
        { host: '127.0.0.1', port: service.port, servername: 'localhost', ca: [certificate.pem] },
        () => socket.write('THIS IS NOT HTTP\r\n\r\n'),
      )
      socket.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk
      })
      socket.once('close', () => resolve(text))
      socket.once('error', reject)
    })
    assert.match(answer, /^HTTP\/1\.1 400 /)
    assert.match(answer, /\r\nStrict-Transport-Security: max-age=31536000\r\n/i)
    assert.match(answer, /\r\nX-Content-Type-Options: nosniff\r\n/i)
  })

  it('sends no Strict-Transport-Security over plain HTTP, the default (RFC 6797 §7.2)', async () => {
    for (const path of ['/events', '/no/such/path']) {
      const res = await plain.request('GET', path)
      assert.equal(res.header('strict-transport-security'), undefined, path)
    }
  })
})

describe('HTTPS server process', () => {
  const env = (extra: Record<string, string>) => ({
    DATABASE_URL: `sqlite:${join(dir, `events-${++made}.db`)}`,
    SEED: 'false',
    ADMIN_PASSWORD: 'admin-password-1',
    ...extra,
  })

  it('logs its certificate, and on SIGHUP serves a new one to new connections while an open keep-alive connection goes on', async () => {
    const first = makeCertificate('first.localhost')
    const second = makeCertificate('second.localhost')
    // The files the service is told about; a renewal replaces their contents.
    const cert = join(dir, 'served-cert.pem')
    const key = join(dir, 'served-key.pem')
    copyFileSync(first.cert, cert)
    copyFileSync(first.key, key)
    const server = spawnServer(env({ TLS_CERT: cert, TLS_KEY: key }))
    try {
      const listeningLine = await logged(server, /Server listening at https:\/\/127\.0\.0\.1:\d+/)
      const port = Number(/https:\/\/127\.0\.0\.1:(\d+)/.exec(listeningLine)?.[1])
      const startLine = await logged(server, /serving HTTPS with this certificate/)
      assert.match(startLine, /CN=first\.localhost/, 'the subject is logged')
      assert.match(startLine, /"validTo":"\d{4}-\d{2}-\d{2}T/, 'the expiry is logged')

      const ca = [first.pem, second.pem]
      const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1, ca })
      const get = () =>
        new Promise<{ status: number; reused: boolean; fingerprint: string }>((resolve, reject) => {
          const req = httpsRequest(
            { host: '127.0.0.1', port, servername: 'localhost', path: '/health/live', agent },
            (res) => {
              // Read now: once the answer has ended, the socket goes back to the agent.
              const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256
              res.resume()
              res.once('end', () =>
                resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket, fingerprint }),
              )
            },
          )
          req.once('error', reject)
          req.end()
        })
      const before = await get()
      assert.equal(before.fingerprint, first.fingerprint256)

      copyFileSync(second.cert, cert)
      copyFileSync(second.key, key)
      const mark = server.output().length
      server.child.kill('SIGHUP')
      const reloadLine = await logged(server, /TLS certificate reloaded/, mark)
      assert.match(reloadLine, /CN=second\.localhost/)

      assert.equal(await certificateOnNewConnection(port, ca), second.fingerprint256, 'new connections')
      const during = await get()
      assert.equal(during.status, 200, 'the open connection still answers')
      assert.equal(during.reused, true, 'on the same connection as before the reload')
      assert.equal(during.fingerprint, first.fingerprint256, 'which keeps the certificate it began with')
      agent.destroy()
      assert.equal(server.child.exitCode, null, 'SIGHUP does not stop the service')
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
    }
  })

  it('keeps the certificate in use and logs why when the files given on SIGHUP cannot be used', async () => {
    const good = makeCertificate()
    const other = makeCertificate()
    const cert = join(dir, 'kept-cert.pem')
    const key = join(dir, 'kept-key.pem')
    copyFileSync(good.cert, cert)
    copyFileSync(good.key, key)
    const server = spawnServer(env({ TLS_CERT: cert, TLS_KEY: key }))
    try {
      const line = await logged(server, /Server listening at https:\/\/127\.0\.0\.1:\d+/)
      const port = Number(/https:\/\/127\.0\.0\.1:(\d+)/.exec(line)?.[1])
      // Half a renewal: a new certificate beside the old key.
      copyFileSync(other.cert, cert)
      const mark = server.output().length
      server.child.kill('SIGHUP')
      const refused = await logged(server, /TLS certificate not reloaded/, mark)
      assert.match(refused, /is not the key of the certificate/)
      assert.equal(await certificateOnNewConnection(port, [good.pem, other.pem]), good.fingerprint256)
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
    }
  })

  describe('a certificate or key that cannot be served stops start-up with status 1 and one plain line', () => {
    const good = makeCertificate()
    const unrelated = makeCertificate()
    const notPem = join(dir, 'not-pem.txt')
    writeFileSync(notPem, 'this is not a certificate\n')

    for (const [story, files, reason] of [
      [
        'a missing certificate file',
        { TLS_CERT: join(dir, 'missing.pem'), TLS_KEY: good.key },
        /TLS_CERT \S+missing\.pem cannot be read \(no such file\)/,
      ],
      [
        'a certificate file that holds no certificate',
        { TLS_CERT: notPem, TLS_KEY: good.key },
        /TLS_CERT \S+not-pem\.txt holds no PEM certificate/,
      ],
      [
        'a key file that holds no key',
        { TLS_CERT: good.cert, TLS_KEY: notPem },
        /TLS_KEY \S+not-pem\.txt holds no unencrypted PEM private key/,
      ],
      [
        'a key of another certificate',
        { TLS_CERT: good.cert, TLS_KEY: unrelated.key },
        /TLS_KEY \S+ is not the key of the certificate in TLS_CERT/,
      ],
    ] as const) {
      it(story, async () => {
        const result = await runServerToExit(env(files))
        assert.equal(result.code, 1, result.stderr)
        assert.match(result.stderr, /^ers: could not start: .+\nhint: .+\n$/)
        assert.match(result.stderr, reason)
      })
    }
  })
})

/** The protocol and suite a handshake with these client options agrees on, or the error's code. */
function handshake(port: number, ca: string, options: ConnectionOptions = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = tlsConnect(
      { host: '127.0.0.1', port, servername: 'localhost', ca: [ca], ...options },
      () => {
        resolve(`${socket.getProtocol()} ${socket.getCipher().name}`)
        socket.end()
      },
    )
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(`refused: ${error.code}`))
  })
}

/** Writes `text` on a plain TCP connection and collects everything until the server closes it. */
function rawExchange(port: number, text: string | undefined): Promise<{ answer: string; ms: number }> {
  const start = Date.now()
  return new Promise((resolve, reject) => {
    let answer = ''
    const socket = tcpConnect({ host: '127.0.0.1', port }, () => {
      if (text !== undefined) socket.write(text)
    })
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk
    })
    socket.once('close', () => resolve({ answer, ms: Date.now() - start }))
    socket.once('error', reject)
  })
}

// TLS 1.2 only with forward secrecy (ECDHE) and AEAD (GCM, ChaCha20-Poly1305), and TLS 1.3
// (CONTRACT.md §4). Measured before: Node's default list offered 21 TLS 1.2 suites with an RSA
// certificate, 12 of them static RSA and many CBC.
describe('TLS versions and cipher suites', () => {
  const target = storeTargets[0] as StoreTarget
  const ecdsa = makeCertificate('ecdsa.localhost', 'ec')
  const rsa = makeCertificate('rsa.localhost', 'rsa')
  const tls12 = { maxVersion: 'TLSv1.2' } as const
  let onEcdsa: TestService
  let onRsa: TestService
  let rsaApp: FastifyInstance | undefined
  before(async () => {
    onEcdsa = await startService(target, { tlsCert: ecdsa.cert, tlsKey: ecdsa.key })
    onRsa = await startService(
      target,
      { tlsCert: rsa.cert, tlsKey: rsa.key },
      {
        beforeListen: (app) => {
          rsaApp = app
        },
      },
    )
  })
  after(async () => {
    await onEcdsa?.close()
    await onRsa?.close()
  })

  it('refuses TLS 1.2 suites without forward secrecy or without AEAD', async () => {
    for (const ciphers of ['AES128-SHA', 'AES128-GCM-SHA256', 'AES256-GCM-SHA384', 'ECDHE-RSA-AES128-SHA']) {
      assert.match(await handshake(onRsa.port, rsa.pem, { ...tls12, ciphers }), /^refused: /, ciphers)
    }
    for (const ciphers of ['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA384', 'ECDHE-ECDSA-AES128-CCM']) {
      assert.match(await handshake(onEcdsa.port, ecdsa.pem, { ...tls12, ciphers }), /^refused: /, ciphers)
    }
  })

  it('agrees on ECDHE with AES-GCM or ChaCha20-Poly1305 over TLS 1.2, for ECDSA and RSA certificates', async () => {
    for (const [service, certificate, ciphers] of [
      [onEcdsa, ecdsa, 'ECDHE-ECDSA-AES128-GCM-SHA256'],
      [onEcdsa, ecdsa, 'ECDHE-ECDSA-CHACHA20-POLY1305'],
      [onRsa, rsa, 'ECDHE-RSA-AES128-GCM-SHA256'],
      [onRsa, rsa, 'ECDHE-RSA-AES256-GCM-SHA384'],
    ] as const) {
      assert.equal(
        await handshake(service.port, certificate.pem, { ...tls12, ciphers }),
        `TLSv1.2 ${ciphers}`,
      )
    }
  })

  it('chooses the suite by its own order, the strongest first, whatever order the client lists', async () => {
    const ciphers = 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384'
    assert.equal(
      await handshake(onRsa.port, rsa.pem, { ...tls12, ciphers }),
      'TLSv1.2 ECDHE-RSA-AES256-GCM-SHA384',
    )
  })

  it('speaks TLS 1.3 and refuses TLS 1.1', async () => {
    assert.match(await handshake(onEcdsa.port, ecdsa.pem), /^TLSv1\.3 TLS_/)
    // OpenSSL 3 offers TLS 1.1 only at security level 0.
    const tls11 = { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' } as const
    assert.match(await handshake(onEcdsa.port, ecdsa.pem, tls11), /^refused: /)
  })

  it('keeps the same suites after SIGHUP’s reload (Node would fall back to its defaults)', async () => {
    assert.ok(rsaApp, 'the app was seen before it listened')
    const reloaded = reloadTls(
      rsaApp.server as unknown as TlsServer,
      { cert: rsa.cert, key: rsa.key },
      tlsPolicy('TLSv1.2', 'ECDHE+AESGCM'),
      rsaApp.log,
    )
    assert.equal(reloaded, true)
    assert.match(
      await handshake(onRsa.port, rsa.pem, { ...tls12, ciphers: 'AES128-GCM-SHA256' }),
      /^refused: /,
    )
    assert.match(
      await handshake(onRsa.port, rsa.pem, { ...tls12, ciphers: 'ECDHE-RSA-CHACHA20-POLY1305' }),
      /^refused: /,
      'the policy given to the reload',
    )
    assert.equal(
      await handshake(onRsa.port, rsa.pem, { ...tls12, ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' }),
      'TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256',
    )
  })

  it('with TLS_MIN_VERSION=TLSv1.3 refuses TLS 1.2; TLS_CIPHERS narrows the TLS 1.2 suites', async () => {
    const only13 = await startService(target, {
      tlsCert: ecdsa.cert,
      tlsKey: ecdsa.key,
      tlsMinVersion: 'TLSv1.3',
    })
    const narrowed = await startService(target, {
      tlsCert: ecdsa.cert,
      tlsKey: ecdsa.key,
      tlsCiphers: 'ECDHE-ECDSA-CHACHA20-POLY1305',
    })
    try {
      assert.match(await handshake(only13.port, ecdsa.pem, tls12), /^refused: /)
      assert.match(await handshake(only13.port, ecdsa.pem), /^TLSv1\.3 /)
      assert.equal(await handshake(narrowed.port, ecdsa.pem, tls12), 'TLSv1.2 ECDHE-ECDSA-CHACHA20-POLY1305')
      assert.match(
        await handshake(narrowed.port, ecdsa.pem, { ...tls12, ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }),
        /^refused: /,
      )
    } finally {
      await only13.close()
      await narrowed.close()
    }
  })
})

describe('plain HTTP sent to the HTTPS port', () => {
  const target = storeTargets[0] as StoreTarget
  const certificate = makeCertificate()
  let service: TestService
  before(async () => {
    service = await startService(target, {
      tlsCert: certificate.cert,
      tlsKey: certificate.key,
      headersTimeoutMs: '400',
      maxConnectionsPerAddress: '3',
    })
  })
  after(() => service?.close())

  it('gets an HTTP/1.1 400 problem that says to use https://, with Connection: close (nginx’s 497)', async () => {
    const { answer } = await rawExchange(service.port, 'GET / HTTP/1.1\r\nHost: localhost\r\n\r\n')
    const [head = '', body = ''] = answer.split('\r\n\r\n')
    assert.match(head, /^HTTP\/1\.1 400 Bad Request\r\n/)
    assert.match(head, /\r\nContent-Type: application\/problem\+json\r\n/i)
    assert.match(head, /\r\nConnection: close(\r\n|$)/i)
    assert.match(head, /\r\nContent-Length: \d+\r\n/i)
    // RFC 6797 §7.2: no HSTS over plain HTTP.
    assert.doesNotMatch(head, /Strict-Transport-Security/i)
    const problem = JSON.parse(body)
    assert.equal(problem.status, 400)
    assert.match(problem.detail, /https:\/\//)
  })

  it('still serves HTTPS on the same port', async () => {
    assert.match(await handshake(service.port, certificate.pem), /^TLSv1\.3 /)
  })

  it('closes a connection that sends nothing after HEADERS_TIMEOUT_MS', async () => {
    const { answer, ms } = await rawExchange(service.port, undefined)
    assert.equal(answer, '')
    assert.ok(ms >= 300 && ms < 3000, `closed after ${ms} ms`)
  })

  it('counts connections not yet told apart toward MAX_CONNECTIONS_PER_ADDRESS', async () => {
    const silent = await Promise.all(
      [1, 2, 3].map(async () => {
        const socket = tcpConnect({ host: '127.0.0.1', port: service.port })
        await once(socket, 'connect')
        return socket
      }),
    )
    try {
      // Over the cap: closed before the TLS handshake, as before.
      assert.match(await handshake(service.port, certificate.pem), /^refused: /)
    } finally {
      for (const socket of silent) socket.destroy()
    }
  })
})

describe('TLS settings at start-up', () => {
  for (const [setting, value, reason] of [
    [
      'TLS_CIPHERS',
      'AES128-SHA:ECDHE+AESGCM',
      /TLS_CIPHERS=AES128-SHA:ECDHE\+AESGCM: enables AES128-SHA: only ECDHE suites/,
    ],
    ['TLS_CIPHERS', 'NOT-A-SUITE', /TLS_CIPHERS=NOT-A-SUITE: OpenSSL enables no cipher suite with it/],
    ['TLS_MIN_VERSION', 'TLSv1.1', /TLS_MIN_VERSION=TLSv1\.1: expected TLSv1\.2 or TLSv1\.3/],
  ] as const) {
    it(`${setting}=${value} stops start-up with a line saying why`, async () => {
      const result = await runServerToExit({
        DATABASE_URL: `sqlite:${join(dir, `refused-${++made}.db`)}`,
        SEED: 'false',
        ADMIN_PASSWORD: 'admin-password-1',
        [setting]: value,
      })
      assert.equal(result.code, 2, result.stderr)
      assert.match(result.stderr, reason)
    })
  }
})

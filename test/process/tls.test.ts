// HTTPS served by the service itself (TLS_CERT, TLS_KEY; CONTRACT.md §4): every answer over TLS
// carries Strict-Transport-Security (RFC 6797 §7.1) and none over plain HTTP (§7.2); SIGHUP serves
// a renewed certificate to new connections while open ones go on; a file that cannot be served
// stops start-up with one plain line. Certificates are made for each run with openssl.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type TLSSocket, connect as tlsConnect } from 'node:tls'
import { Agent, request } from 'undici'
import { runServerToExit, type SpawnedServer, spawnServer } from '../support/process.ts'
import { readResponse, startService, type TestService } from '../support/service.ts'
import { type StoreTarget, storeTargets } from '../support/stores.ts'

const dir = mkdtempSync(join(tmpdir(), 'ers-tls-'))
after(() => rmSync(dir, { recursive: true, force: true }))

interface Certificate {
  readonly cert: string
  readonly key: string
  readonly pem: string
  readonly fingerprint256: string
}

let made = 0
/** A new self-signed P-256 certificate for localhost and 127.0.0.1, valid for a day. */
function makeCertificate(commonName = 'localhost'): Certificate {
  const n = ++made
  const cert = join(dir, `cert-${n}.pem`)
  const key = join(dir, `key-${n}.pem`)
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  )
  const pem = readFileSync(cert, 'utf8')
  return { cert, key, pem, fingerprint256: new X509Certificate(pem).fingerprint256 }
}

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

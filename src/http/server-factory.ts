// The Node server under the app: plain HTTP/1.1, or, with a certificate, HTTPS speaking HTTP/2
// and HTTP/1.1 (ALPN), with the request deadlines, the header limit and the TLS policy either way.
import type { createServer as CreateServer, IncomingMessage, ServerResponse } from 'node:http'
import type { Server as HttpsServer } from 'node:https'
import { createRequire } from 'node:module'
import type { Config } from '../config.ts'
import { refuseMissingHost } from './client-errors.ts'
import { createSecureHttpServer } from './http2-server.ts'
import { refusePlainHttp } from './plain-http-refusal.ts'
import type { TlsMaterial } from './tls.ts'
import { tlsPolicy } from './tls-policy.ts'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

// Required, not imported: on Node 24 an ES module import of node:http reads every export of the
// module, http.WebSocket's lazy getter included, and so loads Node's bundled undici (about 3 MB of
// heap that nothing here uses). require() leaves the getter alone.
const createServer = (createRequire(import.meta.url)('node:http') as { createServer: typeof CreateServer })
  .createServer

/** Fastify's serverFactory: `debug` logs what the connection layers see at debug level. */
export function serverFactory(
  config: Config,
  tls: TlsMaterial | undefined,
  debug: (object: object, message: string) => void,
) {
  return (handler: Handler): HttpsServer => {
    const options = {
      maxHeaderSize: config.maxHeaderSize,
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      // Node checks the two timeouts above only this often (30 s by default).
      connectionsCheckingInterval: 1000,
      // Node's answer to a missing Host is a bare 400; refuseMissingHost answers with a problem.
      requireHostHeader: false,
    }
    const withHost = (request: IncomingMessage, response: ServerResponse) => {
      if (refuseMissingHost(request, response)) return
      handler(request, response)
    }
    let server: ReturnType<typeof CreateServer> | HttpsServer
    if (tls) {
      // HTTP/2 and HTTP/1.1, chosen by ALPN (http/http2-server.ts).
      const secure = createSecureHttpServer(
        {
          options: {
            ...options,
            // A TLS handshake that drags on is held to the header deadline too (Node: 120 s).
            handshakeTimeout: config.headersTimeoutMs,
            cert: tls.cert,
            key: tls.key,
            // TLS 1.2 with ECDHE and AEAD suites only, and TLS 1.3 (http/tls-policy.ts).
            ...tlsPolicy(config.tlsMinVersion, config.tlsCiphers),
          },
          maxConcurrentStreams: config.http2MaxConcurrentStreams,
          maxHeaderSize: config.maxHeaderSize,
          headersTimeoutMs: config.headersTimeoutMs,
          requestTimeoutMs: config.requestTimeoutMs,
          log: { debug },
        },
        withHost,
      ) as unknown as HttpsServer
      // Plain HTTP sent to the HTTPS port gets a 400 that says to use https:// (nginx's 497).
      refusePlainHttp(secure, {
        firstByteTimeoutMs: config.headersTimeoutMs,
        log: { debug },
      })
      server = secure
    } else {
      server = createServer(options, withHost)
    }
    // An Expect other than 100-continue may be ignored (RFC 9110 §10.1.1): the request is served
    // as usual, where Node would answer a bare 417 without a problem body itself.
    server.on('checkExpectation', withHost)
    // Typed as the HTTPS server Fastify expects with `https` set; both serve requests alike.
    return server as HttpsServer
  }
}

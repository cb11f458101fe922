// The HTTPS server (TLS_CERT, TLS_KEY): HTTP/2 and HTTP/1.1 on one port, chosen by ALPN (`h2`,
// then `http/1.1`; a client without ALPN speaks HTTP/1.1). HTTP/1.1 connections are Node's own
// (allowHTTP1) with the same options as the plain server, and the connection guard keeps their
// deadlines (connection-guard.ts). HTTP/2 sessions keep theirs here, per session and per stream:
//
// - Streams: at most HTTP2_MAX_CONCURRENT_STREAMS open at once per connection (the SETTINGS the
//   server sends; nghttp2 refuses a stream beyond it with RST_STREAM). Header lists beyond
//   MAX_HEADER_SIZE are refused by nghttp2 as well.
// - Header deadline: a session must start a request within HEADERS_TIMEOUT_MS of opening, and of
//   each moment it has no stream open; otherwise it is closed (GOAWAY). A header block dripped in
//   CONTINUATION frames opens no stream until it is whole, so it is cut off too.
// - Request deadline: a request body must have arrived within REQUEST_TIMEOUT_MS of its headers:
//   408 with a problem body, or the stream is cancelled if its answer has begun.
// - Rapid reset (CVE-2023-44487): nghttp2 (Node ≥ 20.8.1) ends a session that resets streams
//   faster than its token bucket allows (GOAWAY), and Node ends one that makes too many invalid
//   frames or refused streams; the connection cap per address bounds the sessions one client
//   has. Such a session's errors are logged at debug, never thrown.
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  constants,
  createSecureServer,
  type Http2SecureServer,
  type SecureServerOptions,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2'
import type { TLSSocket } from 'node:tls'
import { mediaTypes } from '../contract/media-types.ts'
import { problem } from './problems.ts'
import { strictTransportSecurity } from './tls.ts'

export interface SecureHttpSettings {
  /** Options of the server as for node:https (TLS, and those of HTTP/1.1). */
  readonly options: SecureServerOptions & Record<string, unknown>
  readonly maxConcurrentStreams: number
  readonly maxHeaderSize: number
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
  readonly log?: { debug(object: object, message: string): void }
}

/** A session told to go away is given this long to finish before it is destroyed. */
const goawayGraceMs = 1000

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/**
 * The HTTPS server: HTTP/2 with HTTP/1.1 beside it. It also has `closeAllConnections()` (as Node's
 * HTTP servers do), which the drain deadline calls (server.ts).
 */
export function createSecureHttpServer(settings: SecureHttpSettings, handler: Handler): Http2SecureServer {
  const server = createSecureServer(
    {
      ...settings.options,
      allowHTTP1: true,
      settings: {
        maxConcurrentStreams: settings.maxConcurrentStreams,
        maxHeaderListSize: settings.maxHeaderSize,
      },
    },
    handler as unknown as Parameters<typeof createSecureServer>[1],
  )
  server.on('session', (session) => guardSession(session, settings))
  server.on('sessionError', (error) => settings.log?.debug({ err: error }, 'HTTP/2 session error'))

  const sockets = new Set<TLSSocket>()
  server.on('secureConnection', (socket: TLSSocket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  Object.assign(server, {
    closeAllConnections() {
      for (const socket of sockets) socket.destroy()
    },
  })
  return server
}

function guardSession(session: ServerHttp2Session, settings: SecureHttpSettings): void {
  const { headersTimeoutMs, requestTimeoutMs, log } = settings
  let open = 0
  let idle: NodeJS.Timeout | undefined
  const goAway = () => {
    if (session.closed || session.destroyed) return
    log?.debug(
      { remoteAddress: session.socket?.remoteAddress },
      'HTTP/2 session without a request in time: closed',
    )
    session.close()
    setTimeout(() => session.destroy(), goawayGraceMs).unref()
  }
  const armIdle = () => {
    clearTimeout(idle)
    idle = setTimeout(goAway, headersTimeoutMs).unref()
  }
  armIdle()
  session.on('error', (error) => log?.debug({ err: error }, 'HTTP/2 session error'))
  session.once('close', () => clearTimeout(idle))
  session.on('stream', (stream: ServerHttp2Stream) => {
    open++
    clearTimeout(idle)
    stream.on('error', () => {})
    let deadline: NodeJS.Timeout | undefined
    if (!stream.endAfterHeaders) {
      deadline = setTimeout(() => lateBody(stream), requestTimeoutMs).unref()
      stream.once('end', () => clearTimeout(deadline))
    }
    stream.once('close', () => {
      clearTimeout(deadline)
      open--
      if (open === 0) armIdle()
    })
  })
}

/** 408 for a request body that did not arrive in time; a stream already answering is cancelled. */
function lateBody(stream: ServerHttp2Stream): void {
  if (stream.destroyed || stream.closed) return
  if (stream.headersSent) {
    stream.close(constants.NGHTTP2_CANCEL)
    return
  }
  const body = JSON.stringify(problem(408, 'the request did not arrive in time'))
  stream.respond({
    ':status': 408,
    'content-type': mediaTypes.problem,
    'content-length': Buffer.byteLength(body),
    'x-content-type-options': 'nosniff',
    'strict-transport-security': strictTransportSecurity,
    vary: 'Accept',
  })
  stream.end(body)
  // The rest of the body is not wanted.
  stream.close(constants.NGHTTP2_NO_ERROR)
}

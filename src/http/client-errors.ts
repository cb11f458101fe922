// Requests that never reach routing — unparseable, headers too large, too slow — still get a
// problem body, written straight to the socket as Node's own handler would. The connection guard
// (connection-guard.ts) writes its 408 and its refusals of surplus connections the same way.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { mediaTypes } from '../contract/media-types.ts'
import { problem } from './problems.ts'
import { strictTransportSecurity } from './tls.ts'

const statusOfCode: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
}

const details: Record<number, string> = {
  400: 'the request is not well-formed HTTP',
  408: 'the request did not arrive in time',
  431: 'the request header section is larger than this service accepts',
}

export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  // Pipelining: while a response is still owed to an earlier request that arrived whole, the error
  // is in a later one, and an answer written now would reach the client as the earlier request's
  // (RFC 9112 §9.3.2: responses go in request order). Close without one, as for a reset.
  // `_httpMessage` is Node's own (no public API says whether a response is owed): the runtime is
  // pinned to one exact version (package.json config.ersRuntime), and
  // test/hostile/regressions.test.ts ("garbage pipelined after a whole request…") fails if it changes.
  const owed = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  if (owed?.req?.complete) {
    socket.destroy(error)
    return
  }
  const status = statusOfCode[error.code ?? ''] ?? 400
  writeProblemAndClose(socket, status, details[status] ?? 'bad request', {}, error)
}

/**
 * Writes a whole problem response (with the fields every response carries and Connection: close)
 * on a socket no request/response pair owns, then closes it. `fields` are added as given, e.g.
 * `{ 'Retry-After': '1' }`. With `lingerMs`, on a socket nothing else reads, what the client sends
 * meanwhile is read and dropped until it closes or the time is up (closing on unread bytes would
 * reset the connection, which can lose the answer on the client's side).
 */
export function writeProblemAndClose(
  socket: Socket,
  status: number,
  detail: string,
  fields: Readonly<Record<string, string>> = {},
  error?: Error,
  lingerMs?: number,
): void {
  if (socket.destroyed) return
  if (socket.writable) {
    const body = JSON.stringify(problem(status, detail))
    socket[lingerMs === undefined ? 'write' : 'end'](
      `HTTP/1.1 ${status} ${problem(status, '').title}\r\n` +
        `Date: ${new Date().toUTCString()}\r\n` +
        `Content-Type: ${mediaTypes.problem}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        // RFC 6797 §7.2: HSTS only over a secure transport.
        ('encrypted' in socket && socket.encrypted
          ? `Strict-Transport-Security: ${strictTransportSecurity}\r\n`
          : '') +
        Object.entries(fields)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('') +
        'Vary: Accept\r\nConnection: close\r\n\r\n' +
        body,
    )
    if (lingerMs !== undefined) {
      socket.resume()
      socket.once('end', () => socket.destroy())
      setTimeout(() => socket.destroy(), lingerMs).unref()
      return
    }
  }
  socket.destroy(error)
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without a Host field is answered 400. Node's own answer to it
 * (`requireHostHeader`) is a bare 400 without a problem body or the fields every answer carries, so
 * the server is made with `requireHostHeader: false` and this answers instead, before routing.
 * Returns whether it answered. An empty Host is allowed, as Node allows it.
 */
export function refuseMissingHost(request: IncomingMessage, response: ServerResponse): boolean {
  if (
    request.headers.host !== undefined ||
    request.httpVersionMajor !== 1 ||
    request.httpVersionMinor !== 1
  ) {
    return false
  }
  const body = JSON.stringify(problem(400, 'an HTTP/1.1 request needs a Host header field'))
  response.shouldKeepAlive = false
  const socket = request.socket
  response.writeHead(400, problem(400, '').title, {
    'content-type': mediaTypes.problem,
    'content-length': Buffer.byteLength(body),
    'x-request-id': randomUUID(),
    'x-content-type-options': 'nosniff',
    // RFC 6797 §7.2: HSTS only over a secure transport.
    ...('encrypted' in socket && socket.encrypted === true
      ? { 'strict-transport-security': strictTransportSecurity }
      : {}),
    vary: 'Accept',
    connection: 'close',
  })
  response.end(body)
  return true
}

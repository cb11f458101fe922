// Requests that never reach routing — unparseable, headers too large, too slow — still get a
// problem body, written straight to the socket as Node's own handler would.
import { randomUUID } from 'node:crypto'
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
  if (socket.writable) {
    const status = statusOfCode[error.code ?? ''] ?? 400
    const body = JSON.stringify(problem(status, details[status] ?? 'bad request'))
    socket.write(
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
        'Vary: Accept\r\nConnection: close\r\n\r\n' +
        body,
    )
  }
  socket.destroy(error)
}

// Plain HTTP sent to the HTTPS port. Node's TLS server takes the request line for a broken
// handshake and closes the connection without a word (curl: "Empty reply from server"). Like
// nginx's 497, the service answers it instead, in the only language that client understands:
// an HTTP/1.1 400 problem, Connection: close, telling it to use https://.
//
// Every TLS connection starts with a handshake record, content type 22 (RFC 8446 §5.1; RFC 5246
// §6.2.1 for TLS 1.2), so the first byte tells the two apart. The first bytes are read, put back
// (`unshift`) and the socket handed to the TLS server's own listeners, which read them again.
//
// Guards: the per-address connection cap (connection-guard.ts) wraps these listeners too, so it
// counts a connection before it is told apart. A connection that sends nothing is closed after
// HEADERS_TIMEOUT_MS, as the connection guard closes one that never starts its request; once the
// first byte has come, the TLS handshake has the server's handshakeTimeout and the HTTP request
// the guard's deadlines.
import type { Socket } from 'node:net'
import type { Server as TlsServer } from 'node:tls'
import { writeProblemAndClose } from './client-errors.ts'

/** TLS record content type of a handshake: the first byte of every ClientHello. */
export const handshakeRecord = 0x16

export const plainHttpDetail = 'this port speaks HTTPS only: send the request again with an https:// URL'

/** The refused client is given this long to take the answer before the socket is closed. */
const lingerMs = 1000

export interface PlainHttpOptions {
  /** How long a new connection may stay silent before it is closed without an answer. */
  readonly firstByteTimeoutMs: number
  readonly log?: { debug(object: object, message: string): void }
}

/** Makes `server` answer plain HTTP with a 400 problem; TLS goes on as before. */
export function refusePlainHttp(server: TlsServer, { firstByteTimeoutMs, log }: PlainHttpOptions): void {
  const handlers = server.listeners('connection') as ((socket: Socket) => void)[]
  server.removeAllListeners('connection')
  server.on('connection', (socket: Socket) => {
    // Until the TLS server has the socket, nobody else listens for its errors (a reset).
    const ignore = () => {}
    socket.on('error', ignore)
    const silent = setTimeout(() => socket.destroy(), firstByteTimeoutMs).unref()
    socket.once('close', () => clearTimeout(silent))
    socket.once('data', (chunk: Buffer) => {
      clearTimeout(silent)
      socket.pause()
      socket.unshift(chunk)
      if (chunk[0] === handshakeRecord) {
        socket.off('error', ignore)
        for (const handler of handlers) handler.call(server, socket)
        return
      }
      log?.debug({ remoteAddress: socket.remoteAddress }, 'plain HTTP on the HTTPS port: 400')
      writeProblemAndClose(socket, 400, plainHttpDetail, {}, undefined, lingerMs)
    })
  })
}

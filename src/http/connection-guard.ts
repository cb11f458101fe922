// Slow and surplus connections, handled per socket below Fastify (CONTRACT.md §6).
//
// - Header deadline (HEADERS_TIMEOUT_MS): the headers of a request must be complete this long after
//   its first byte (on a new connection: after the connection opened). Past it, a request that has
//   begun gets 408 and the connection is closed; a new connection that sent nothing at all is
//   closed without an answer, as there is no request to answer. Node has its own check, but the
//   ARCHITECTURE.md notes measured Node 20.20.2 honouring `headersTimeout` only until the server
//   completed its first request, so the service does not rely on it alone.
// - Request deadline (REQUEST_TIMEOUT_MS): the whole request, body included, must have arrived
//   this long after its first byte, however steadily a body trickles in: 408, then close.
// - Idle keep-alive connections (a response finished, no byte of the next request yet) are left to
//   Node's keepAliveTimeout (5 s), which closes them silently: no stray 408 is written into a
//   connection whose client simply has nothing more to ask. The next request's clock starts at
//   its first byte.
// - Connections per client address (MAX_CONNECTIONS_PER_ADDRESS, 0: no cap): open sockets are
//   counted per peer address (an IPv6 address by its /64, as failed-attempts.ts counts them). One
//   over the cap is refused before any of it is read: over plain HTTP with 429, Retry-After and a
//   problem body; over HTTPS closed before the TLS handshake (no HTTP can be spoken before it).
//   Peers that TRUST_PROXY trusts are proxies that carry many clients on their connections: they
//   are not capped (limit clients at the proxy, e.g. nginx's limit_conn). With TRUST_PROXY=true
//   every peer is trusted, so the cap is off.
//
// The deadlines are checked by one timer per server, running only while connections are open,
// every quarter of the shorter deadline (at most every second): a deadline holds to within that.
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { Server as TlsServer } from 'node:tls'
import { addressBlock } from '../auth/failed-attempts.ts'
import { writeProblemAndClose } from './client-errors.ts'

/** Time as the guard reads it, and its periodic check: Node's timers, or a test's own clock. */
export interface GuardClock {
  now(): number
  /** Runs `check` every `ms` until the returned function is called. */
  every(ms: number, check: () => void): () => void
}

const timers: GuardClock = {
  now: Date.now,
  every(ms, check) {
    const ticker = setInterval(check, ms).unref()
    return () => clearInterval(ticker)
  },
}

export interface ConnectionGuardOptions {
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
  /** Open connections allowed per client address; 0 turns the cap off. */
  readonly maxConnectionsPerAddress: number
  /** Whether a peer is a trusted proxy (TRUST_PROXY), exempt from the cap. */
  readonly trustedPeer?: (address: string) => boolean
  /** Where refusals and cut-off requests are noted (debug level). */
  readonly log?: { debug(object: object, message: string): void }
  /** Node's timers by default; tests move a clock of their own past the deadlines. */
  readonly clock?: GuardClock
}

/** Seconds a refused client is asked to wait before it connects again. */
export const retryAfterSeconds = 1
/** A refused connection is given this long to take its answer before it is closed. */
const refusalLingerMs = 1000

type Phase = 'headers' | 'body' | 'responding' | 'idle'

interface Tracked {
  phase: Phase
  /** When the current request's first byte was seen (for a new connection: when it opened). */
  start: number
  /** Bytes read when the connection went idle; more means the next request has begun. */
  bytesAtIdle: number
  request: IncomingMessage | undefined
  response: ServerResponse | undefined
}

/** Attaches the deadlines and the per-address cap to a freshly created HTTP or HTTPS server. */
export function guardConnections(server: Server, options: ConnectionGuardOptions): void {
  const { headersTimeoutMs, requestTimeoutMs, log, clock = timers } = options
  const tracked = new Map<Socket, Tracked>()
  const tickMs = Math.max(10, Math.min(1000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 4)))
  let stopTicker: (() => void) | undefined

  const check = () => {
    const now = clock.now()
    for (const [socket, state] of tracked) {
      if (socket.destroyed) {
        tracked.delete(socket)
        continue
      }
      if (state.phase === 'idle') {
        if (socket.bytesRead > state.bytesAtIdle) {
          state.phase = 'headers'
          state.start = now
        }
        continue
      }
      if (state.phase === 'body' && state.request?.complete) state.phase = 'responding'
      const late =
        (state.phase === 'headers' && now - state.start >= headersTimeoutMs) ||
        (state.phase === 'body' && now - state.start >= requestTimeoutMs)
      if (!late) continue
      tracked.delete(socket)
      if (state.phase === 'headers' && socket.bytesRead === 0) {
        // A connection opened and never used: nothing to answer.
        log?.debug({ remoteAddress: socket.remoteAddress }, 'closing a connection that sent nothing')
        socket.destroy()
      } else if (state.response?.headersSent) {
        socket.destroy()
      } else {
        log?.debug(
          { remoteAddress: socket.remoteAddress, phase: state.phase },
          'request did not arrive in time: 408',
        )
        writeProblemAndClose(socket, 408, 'the request did not arrive in time')
      }
    }
    if (tracked.size === 0) stopTicking()
  }
  const stopTicking = () => {
    stopTicker?.()
    stopTicker = undefined
  }

  const track = (socket: Socket) => {
    // An HTTP/2 session keeps its own deadlines (http2-server.ts): no HTTP/1.1 408 is written into it.
    if ((socket as Socket & { alpnProtocol?: string | false }).alpnProtocol === 'h2') return
    tracked.set(socket, {
      phase: 'headers',
      start: clock.now(),
      bytesAtIdle: 0,
      request: undefined,
      response: undefined,
    })
    socket.once('close', () => tracked.delete(socket))
    stopTicker ??= clock.every(tickMs, check)
  }
  // The socket HTTP is spoken on: the TCP socket, or over HTTPS the TLS socket once the handshake
  // is done (the handshake itself is bounded by the server's handshakeTimeout).
  server.on(server instanceof TlsServer ? 'secureConnection' : 'connection', track)
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const state = tracked.get(request.socket)
    if (state === undefined) return
    // A request whose bytes came while the previous response was still being written.
    if (state.phase === 'idle' || state.phase === 'responding') state.start = clock.now()
    state.phase = request.complete ? 'responding' : 'body'
    state.request = request
    state.response = response
    response.once('finish', () => {
      // Only the latest response: with pipelining, a later request may already be in flight.
      if (state.response !== response) return
      state.phase = 'idle'
      state.bytesAtIdle = request.socket.bytesRead
      state.request = undefined
      state.response = undefined
    })
  })
  server.once('close', stopTicking)

  if (options.maxConnectionsPerAddress > 0) capPerAddress(server, options)
}

/**
 * Counts open TCP connections per client address and refuses those over the cap before Node's
 * HTTP (or TLS) handling sees them: the server's own 'connection' listeners are wrapped.
 */
function capPerAddress(server: Server, options: ConnectionGuardOptions): void {
  const { maxConnectionsPerAddress: cap, trustedPeer, log } = options
  const open = new Map<string, number>()
  const encrypted = server instanceof TlsServer
  const handlers = server.listeners('connection') as ((socket: Socket) => void)[]
  server.removeAllListeners('connection')
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress
    if (address === undefined || trustedPeer?.(address)) {
      for (const handler of handlers) handler.call(server, socket)
      return
    }
    const key = addressBlock(address)
    const count = open.get(key) ?? 0
    if (count >= cap) {
      log?.debug({ remoteAddress: address, open: count }, 'too many connections from one address: refused')
      refuse(socket, encrypted)
      return
    }
    open.set(key, count + 1)
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1
      if (left > 0) open.set(key, left)
      else open.delete(key)
    })
    for (const handler of handlers) handler.call(server, socket)
  })
}

function refuse(socket: Socket, encrypted: boolean): void {
  socket.on('error', () => {})
  if (encrypted) {
    socket.destroy()
    return
  }
  // What the client already sent is read and dropped, and the socket closed a moment later: closing
  // with unread bytes would reset the connection and could lose the answer on the client's side.
  writeProblemAndClose(
    socket,
    429,
    'too many open connections from this address; close one or try again later',
    { 'Retry-After': String(retryAfterSeconds) },
    undefined,
    refusalLingerMs,
  )
}

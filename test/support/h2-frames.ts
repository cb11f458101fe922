// A raw HTTP/2 connection for tests that must do what a well-behaved client never does: open more
// streams than the server allows, reset streams in a flood (CVE-2023-44487), or open a session and
// never send a request. Frames are written by hand (RFC 9113 §4.1), header blocks as HPACK literals
// without indexing (RFC 7541 §6.2.2), so no compression state is kept.
import { connect, type TLSSocket } from 'node:tls'

export const frameTypes = { headers: 0x1, rstStream: 0x3, settings: 0x4, goaway: 0x7 } as const
export const errorCodes = { noError: 0x0, protocolError: 0x1, refusedStream: 0x7, cancel: 0x8 } as const

export interface Frame {
  readonly type: number
  readonly flags: number
  readonly stream: number
  readonly payload: Buffer
}

export interface RawSession {
  readonly socket: TLSSocket
  readonly frames: Frame[]
  /** Resolves when the server has closed the connection. */
  readonly closed: Promise<void>
  /** Waits (polling) until a frame satisfies `test`. */
  frame(test: (frame: Frame) => boolean): Promise<Frame>
  write(bytes: Buffer): boolean
}

export function frame(
  type: number,
  flags: number,
  stream: number,
  payload: Buffer = Buffer.alloc(0),
): Buffer {
  const head = Buffer.alloc(9)
  head.writeUIntBE(payload.length, 0, 3)
  head[3] = type
  head[4] = flags
  head.writeUInt32BE(stream, 5)
  return Buffer.concat([head, payload])
}

function literal(index: number, value: string): Buffer {
  // Literal header field without indexing, indexed name (4-bit prefix), raw string value.
  const name = index < 15 ? [index] : [15, index - 15]
  const bytes = Buffer.from(value)
  if (bytes.length > 126) throw new Error('a short value only')
  return Buffer.from([...name, bytes.length, ...bytes])
}

/** A HEADERS frame of a GET (END_STREAM, END_HEADERS) of `path` with `accept`. */
export function getHeaders(stream: number, path: string, accept: string): Buffer {
  const block = Buffer.concat([
    Buffer.from([0x82, 0x87]), // :method GET, :scheme https
    literal(4, path), // :path
    literal(1, 'localhost'), // :authority
    literal(19, accept), // accept
  ])
  return frame(frameTypes.headers, 0x1 | 0x4, stream, block)
}

export function rstStream(stream: number, code: number = errorCodes.cancel): Buffer {
  const payload = Buffer.alloc(4)
  payload.writeUInt32BE(code)
  return frame(frameTypes.rstStream, 0, stream, payload)
}

/** RST_STREAM's and GOAWAY's error code. */
export const errorCodeOf = (f: Frame) =>
  f.type === frameTypes.goaway ? f.payload.readUInt32BE(4) : f.payload.readUInt32BE(0)

/** Opens a TLS connection with ALPN h2, sends the preface and SETTINGS, and acknowledges the server's. */
export async function rawSession(port: number, ca: string): Promise<RawSession> {
  const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', ca, ALPNProtocols: ['h2'] })
  socket.on('error', () => {})
  const frames: Frame[] = []
  let pending = Buffer.alloc(0)
  let settingsAcked = false
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk])
    while (pending.length >= 9) {
      const length = pending.readUIntBE(0, 3)
      if (pending.length < 9 + length) break
      const f: Frame = {
        type: pending[3] as number,
        flags: pending[4] as number,
        stream: pending.readUInt32BE(5) & 0x7fffffff,
        payload: pending.subarray(9, 9 + length),
      }
      pending = pending.subarray(9 + length)
      frames.push(f)
      if (f.type === frameTypes.settings && (f.flags & 0x1) === 0 && !settingsAcked) {
        settingsAcked = true
        socket.write(frame(frameTypes.settings, 0x1, 0))
      }
    }
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', () => resolve())
    socket.once('error', reject)
  })
  if (socket.alpnProtocol !== 'h2') throw new Error(`ALPN chose ${socket.alpnProtocol}, not h2`)
  socket.write(
    Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), frame(frameTypes.settings, 0, 0)]),
  )
  const session: RawSession = {
    socket,
    frames,
    closed,
    write: (bytes) => socket.write(bytes),
    async frame(test) {
      for (;;) {
        const found = frames.find(test)
        if (found) return found
        if (socket.destroyed) throw new Error('the connection closed first')
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
  }
  await session.frame((f) => f.type === frameTypes.settings && (f.flags & 0x1) === 0)
  return session
}

/** The server's SETTINGS_MAX_CONCURRENT_STREAMS (id 0x3) from its SETTINGS frame. */
export function maxConcurrentStreams(frames: readonly Frame[]): number | undefined {
  const settings = frames.find((f) => f.type === frameTypes.settings && (f.flags & 0x1) === 0)
  if (!settings) return undefined
  for (let at = 0; at + 6 <= settings.payload.length; at += 6) {
    if (settings.payload.readUInt16BE(at) === 0x3) return settings.payload.readUInt32BE(at + 2)
  }
  return undefined
}

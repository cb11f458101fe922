// Where the service process writes its log: standard output, through a buffer.
//
// Unbuffered, every line was a write of its own: one per request with the access line. Lines are
// now gathered until 4 KiB are waiting and written together, and whatever is waiting is written at
// least every 100 ms, so a quiet service's lines still show promptly. The write is synchronous, as
// pino's own default: an asynchronous one went through libuv's thread pool and woke the event loop
// on completion, and at GET /events/<id>'s rate that cost more than the line itself (7 µs of CPU per
// request against 3 µs). A reader of standard output that stops reading holds the service up rather
// than letting lines pile up in memory. On exit, even through process.exit or an uncaught
// exception, what is left is written; only a SIGKILL loses the last 100 ms.
//
// The lines wait in an array, joined once when written. pino's destination (sonic-boom) can buffer
// by itself (minLength), but it appends each line to one growing string and measures that string's
// bytes on every write, flattening up to 4 KiB per line: GET /events/<id> on SQLite cost ~5% more
// CPU per request that way (two builds side by side on one core, five rounds). It still does the
// writing: partial writes, EAGAIN on a non-blocking pipe.
//
// A line may also wait unformatted (writeDeferred): an object whose toString() makes the line,
// called by the join. The access line waits so: a request stores its fields, and a buffer's lines
// are put together in one loop when it is written.
import { type DestinationStream, destination } from 'pino'

/** Characters (not bytes: a threshold need not be exact) gathered before they are written. */
export const logBufferBytes = 4096
export const logFlushEveryMs = 100

/** A line made when the buffer is written: `toString()` returns it, newline included. */
export interface DeferredLine {
  toString(): string
}

export interface ProcessLogStream extends DestinationStream {
  /** Queues a line to be made when the buffer is written, counted as `length` characters until then. */
  writeDeferred(line: DeferredLine, length: number): void
  /** Writes what is waiting, now. */
  flushSync(): void
  /** pino's `logger.flush(callback)`: the same, then the callback. */
  flush(callback?: (error?: Error) => void): void
}

/** The log destination of `node dist/main.js`; tests build apps that log elsewhere. */
export function processLogStream(fd = 1): ProcessLogStream {
  const out = destination({ dest: fd, sync: true })
  let waiting: (string | DeferredLine)[] = []
  let length = 0
  const flushSync = () => {
    if (waiting.length === 0) return
    const text = waiting.join('')
    waiting = []
    length = 0
    out.write(text)
  }
  setInterval(flushSync, logFlushEveryMs).unref()
  process.once('exit', flushSync)
  return {
    write(line: string) {
      waiting.push(line)
      length += line.length
      if (length >= logBufferBytes) flushSync()
    },
    writeDeferred(line: DeferredLine, characters: number) {
      waiting.push(line)
      length += characters
      if (length >= logBufferBytes) flushSync()
    },
    flushSync,
    flush(callback) {
      flushSync()
      callback?.()
    },
  }
}

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
import { type DestinationStream, destination } from 'pino'

export const logBufferBytes = 4096
export const logFlushEveryMs = 100

/** The log destination of `node dist/main.js`; tests build apps that log elsewhere. */
export function processLogStream(): DestinationStream {
  const stream = destination({
    dest: 1,
    sync: true,
    minLength: logBufferBytes,
    periodicFlush: logFlushEveryMs,
  })
  // pino flushes its own buffer at exit only for asynchronous destinations.
  process.once('exit', () => stream.flushSync())
  return stream
}

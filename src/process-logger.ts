// Where the service process writes its log: standard output, through a buffer.
//
// Unbuffered, every line was a write of its own, handed to libuv's thread pool and back: one per
// request with the access line. Lines are now gathered until 4 KiB are waiting and written
// together, and whatever is waiting is written at least every 100 ms, so a quiet service's lines
// still show promptly. On exit, even through process.exit or an uncaught
// exception, pino writes what is left synchronously; only a SIGKILL loses the last 100 ms.
import { type DestinationStream, destination } from 'pino'

export const logBufferBytes = 4096
export const logFlushEveryMs = 100

/** The log destination of `node dist/main.js`; tests build apps that log elsewhere. */
export const processLogStream = (): DestinationStream =>
  destination({ dest: 1, minLength: logBufferBytes, periodicFlush: logFlushEveryMs })

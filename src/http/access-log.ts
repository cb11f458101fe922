// What the service logs per request, and what that costs when nobody reads it.
//
// Fastify's own request logging writes two lines per request (`incoming request`, `request
// completed`) through a pino child logger made for every request: at info that was a fifth of the
// busy time of GET /events/<id>, and the child was made even at warn, where nothing is written.
// Here instead:
// - one line per answered request (`request completed`: request id, method, URL, client address,
//   status, time), at info, written through the root logger as one flat object (ACCESS_LOG=false:
//   none); at debug, a line as each request starts (`incoming request`) too;
// - the access line is written as pino writes it (same fields, same order, same level, time and
//   bindings), but, for the logger the service makes itself (serviceLogger), put together by a
//   function made for its six fields rather than by pino's general path, which looks up
//   serializers, stringifiers and mixins for every key of every line: with the access line on, GET
//   /events/<id> cost ~9 µs of CPU more than without. Only pino's public API is used for it (no
//   private symbols); a logger given from outside (tests) gets its lines through pino's own path.
// - `request.log` makes its child logger (which carries the request id into every line the request
//   writes, warnings and errors alike) on its first line only, so a request that logs nothing
//   makes none.
import { hostname } from 'node:os'
import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify'
import pino, { type DestinationStream, destination, type Logger, stdTimeFunctions } from 'pino'
import type { ProcessLogStream } from '../process-logger.ts'

type Bindings = Parameters<FastifyBaseLogger['child']>[0]
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'

/** Whether `logger` writes lines at `level` (a logger that cannot tell is taken to write them). */
export const enabled = (logger: FastifyBaseLogger, level: Level): boolean => {
  const check = (logger as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled
  return check === undefined || check.call(logger, level)
}

/** Fastify's per-request log lines, replaced by the access line (one per response). */
export class AccessLog extends LogController {
  readonly #lines: boolean
  /** The app's logger, when its access lines are written directly (writesDirectly). */
  #own: { readonly logger: FastifyBaseLogger; readonly write: LineWriter } | undefined

  /** `lines`: whether answered requests are logged at all (ACCESS_LOG). */
  constructor(lines: boolean) {
    super({ requestIdLogLabel: 'requestId' })
    this.#lines = lines
  }

  /**
   * The access lines of `logger` (Fastify's app.log: a child of serviceLogger's logger that adds no
   * binding, only serializers of other keys) go to `write`; any other logger's through pino.
   */
  writesDirectly(logger: FastifyBaseLogger, write: LineWriter): void {
    this.#own = { logger, write }
  }

  override incomingRequest(request: FastifyRequest): void {
    if (!this.#lines) return
    const log = request.server.log
    if (!enabled(log, 'debug')) return
    log.debug({ requestId: request.id, method: request.method, url: request.url }, 'incoming request')
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const log = request.server.log
    if (error) {
      // As Fastify logs it: a response that failed on its way out is an error whatever ACCESS_LOG says.
      log.error({ ...lineOf(request, reply), err: error }, 'request errored')
      return
    }
    // Checked before the line is put together: at warn, or with ACCESS_LOG=false, it costs nothing.
    if (this.#lines && enabled(log, 'info')) this.answered(log, lineOf(request, reply))
  }

  /** The access line of an answered request. */
  answered(log: FastifyBaseLogger, line: AccessLine): void {
    if (!this.#lines || !enabled(log, 'info')) return
    if (this.#own?.logger === log) this.#own.write(line)
    else log.info(line, completed)
  }
}

/** The fields of an access line, in their order. */
export interface AccessLine {
  readonly requestId: string
  readonly method: string
  readonly url: string
  /** Undefined (and left out) once the client has gone. */
  readonly remoteAddress: string | undefined
  readonly statusCode: number
  /** Milliseconds from the request's arrival to the end of its response. */
  readonly responseTime: number
}

export type LineWriter = (line: AccessLine) => void

const completed = 'request completed'

const lineOf = (request: FastifyRequest, reply: FastifyReply): AccessLine => ({
  requestId: request.id,
  method: request.method,
  url: request.url,
  // request.ip follows TRUST_PROXY; undefined (and left out) once the client has gone.
  remoteAddress: request.ip,
  statusCode: reply.statusCode,
  responseTime: reply.elapsedTime,
})

/** A string as JSON: written as it is when it needs no escaping (the usual request id, method, address). */
/** What an access line's length is counted as until it is made (most are 200–260 characters). */
const typicalLineLength = 240

const isProcessLogStream = (stream: DestinationStream): stream is ProcessLogStream =>
  typeof (stream as Partial<ProcessLogStream>).writeDeferred === 'function'

const plain = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/
const jsonString = (text: string) => (plain.test(text) ? `"${text}"` : JSON.stringify(text))

export interface ServiceLoggerOptions {
  readonly level: string
  readonly redact: readonly string[]
  /** Where lines go (default: standard output, unbuffered). */
  readonly stream?: DestinationStream
}

/**
 * The service's own pino logger, and the writer of its access line. The logger is made here with
 * pino's default line (level number, epoch time, pid and hostname, `msg`, a newline), its options
 * given explicitly, so the writer puts the access line together from public facts alone
 * (`levels`, `stdTimeFunctions`, the base and the stream it gave) and writes it to that stream.
 * test/unit/access-log.test.ts holds the two to the same bytes.
 */
export function serviceLogger(options: ServiceLoggerOptions): { logger: Logger; write: LineWriter } {
  const stream = options.stream ?? destination({ dest: 1, sync: true })
  // pino's defaults, given explicitly: the writer below repeats them.
  const base = { pid: process.pid, hostname: hostname() }
  const logger = pino(
    { level: options.level, redact: [...options.redact], timestamp: stdTimeFunctions.epochTime, base },
    stream,
  )
  const info = logger.levels.values.info
  const bindings = JSON.stringify(base).slice(1, -1)
  const start = `{"level":${info}`
  const middle = `,${bindings}`
  const ending = `,"msg":"${completed}"}\n`
  const now = stdTimeFunctions.epochTime
  // pino leaves an undefined field out. The request id (a UUID, or a client's id of plain
  // characters: http/request-id.ts) and the method (a token: HTTP/1.1's and HTTP/2's parsers take
  // no other) never need escaping; the URL and the address (behind a proxy, the text of
  // X-Forwarded-For) may. `time` is epochTime's field, `,"time":<ms>`.
  const text = (
    { requestId, method, url, remoteAddress, statusCode, responseTime }: AccessLine,
    time: string,
  ) =>
    `${start}${time}${middle},"requestId":"${requestId}","method":"${method}","url":${jsonString(url)}${remoteAddress === undefined ? '' : `,"remoteAddress":${jsonString(remoteAddress)}`},"statusCode":${statusCode},"responseTime":${Number.isFinite(responseTime) ? responseTime : null}${ending}`
  // To the process's own buffer, the line is made when the buffer is written, with the others
  // waiting there (process-logger.ts): made on each request's path it cost ~2x the CPU.
  const buffer = isProcessLogStream(stream) ? stream : undefined
  class Waiting {
    constructor(
      readonly fields: AccessLine,
      readonly time: number,
    ) {}
    toString(): string {
      return text(this.fields, `,"time":${this.time}`)
    }
  }
  const write: LineWriter = buffer
    ? (fields) => buffer.writeDeferred(new Waiting(fields, Date.now()), typicalLineLength)
    : (fields) => stream.write(text(fields, now()))
  return { logger, write }
}

/**
 * Fastify's `childLoggerFactory`: the request's logger, whose pino child (with the request id)
 * is made on its first line at an enabled level, not for every request.
 */
export function requestLogger(
  this: unknown,
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  // A route's own level or serializers: made at once, as Fastify would.
  for (const _ in options) return logger.child(bindings, options)
  return new LazyChild(logger, bindings)
}

class LazyChild implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger
  readonly #bindings: Bindings
  #child: FastifyBaseLogger | undefined

  constructor(parent: FastifyBaseLogger, bindings: Bindings) {
    this.#parent = parent
    this.#bindings = bindings
  }

  #made(): FastifyBaseLogger {
    if (this.#child === undefined) this.#child = this.#parent.child(this.#bindings)
    return this.#child
  }

  #write(level: Level, args: unknown[]): void {
    if (this.#child === undefined && !enabled(this.#parent, level)) return
    ;(this.#made()[level] as (...args: unknown[]) => void)(...args)
  }

  get level(): string {
    return this.#child?.level ?? this.#parent.level
  }

  set level(level: string) {
    this.#made().level = level
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args)
  }
  error(...args: unknown[]): void {
    this.#write('error', args)
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args)
  }
  info(...args: unknown[]): void {
    this.#write('info', args)
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args)
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args)
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options)
  }
}

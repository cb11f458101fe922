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
//   bindings), but put together by a function made for its six fields (compiledAccessLine) rather
//   than by pino's general path, which looks up serializers, stringifiers and mixins for every key
//   of every line: with the access line on, GET /events/<id> cost ~9 µs of CPU more than without.
//   A logger that customises any of that (a mixin, a log formatter, redaction or serializers of
//   these fields, a stream that wants metadata) gets its lines through pino's own path.
// - `request.log` makes its child logger (which carries the request id into every line the request
//   writes, warnings and errors alike) on its first line only, so a request that logs nothing
//   makes none.
import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify'
import { symbols } from 'pino'

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
  /** The access line's writer, made for the app's logger on the first answered request. */
  #writer: { readonly logger: FastifyBaseLogger; readonly write: LineWriter } | undefined

  /** `lines`: whether answered requests are logged at all (ACCESS_LOG). */
  constructor(lines: boolean) {
    super({ requestIdLogLabel: 'requestId' })
    this.#lines = lines
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

  /** The access line of an answered request (http/direct-read.ts calls it for its own). */
  answered(log: FastifyBaseLogger, line: AccessLine): void {
    if (!this.#lines || !enabled(log, 'info')) return
    if (this.#writer?.logger !== log) this.#writer = { logger: log, write: accessLineWriter(log) }
    this.#writer.write(line)
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

type LineWriter = (line: AccessLine) => void

const completed = 'request completed'

function accessLineWriter(log: FastifyBaseLogger): LineWriter {
  return compiledAccessLine(log) ?? ((line) => log.info(line, completed))
}

const lineOf = (request: FastifyRequest, reply: FastifyReply): AccessLine => ({
  requestId: request.id,
  method: request.method,
  url: request.url,
  // request.ip follows TRUST_PROXY; undefined (and left out) once the client has gone.
  remoteAddress: request.ip,
  statusCode: reply.statusCode,
  responseTime: reply.elapsedTime,
})

// A child's message prefix (pino 8.14 and later; not in pino's typings).
const msgPrefix = (symbols as unknown as Record<string, symbol | undefined>).msgPrefixSym
const lineKeys = ['requestId', 'method', 'url', 'remoteAddress', 'statusCode', 'responseTime', 'msg']

/** A string as JSON: written as it is when it needs no escaping (the usual request id, method, address). */
const plain = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/
const jsonString = (text: string) => (plain.test(text) ? `"${text}"` : JSON.stringify(text))

/**
 * The access line of lineOf, with pino's own level field, time, bindings and line end (read
 * through `pino.symbols`, which pino exposes for integrations), when `log` is a pino logger that
 * would write it exactly so; undefined otherwise.
 */
function compiledAccessLine(log: FastifyBaseLogger): LineWriter | undefined {
  const logger = log as unknown as Record<symbol, unknown> & { levels?: { values?: Record<string, number> } }
  const info = logger.levels?.values?.info
  const levelField =
    info === undefined ? undefined : (logger[symbols.lsCacheSym] as Record<number, unknown>)?.[info]
  const time = logger[symbols.timeSym]
  const bindings = logger[symbols.chindingsSym]
  const end = logger[symbols.endSym]
  const stream = logger[symbols.streamSym] as { write?: unknown } | undefined
  const formatters = logger[symbols.formattersSym] as { log?: unknown } | undefined
  const hooks = logger[symbols.hooksSym] as { streamWrite?: unknown; logMethod?: unknown } | undefined
  const serializers = (logger[symbols.serializersSym] ?? {}) as Record<string, unknown>
  const stringifiers = (logger[symbols.stringifiersSym] ?? {}) as Record<string | symbol, unknown>
  if (
    typeof levelField !== 'string' ||
    typeof time !== 'function' ||
    typeof bindings !== 'string' ||
    typeof end !== 'string' ||
    typeof stream?.write !== 'function' ||
    (stream as Record<symbol, unknown>)[symbols.needsMetadataGsym] === true ||
    logger[symbols.mixinSym] ||
    logger[symbols.nestedKeySym] ||
    (msgPrefix !== undefined && logger[msgPrefix]) ||
    logger[symbols.messageKeySym] !== 'msg' ||
    formatters?.log ||
    hooks?.streamWrite ||
    hooks?.logMethod ||
    stringifiers[symbols.wildcardFirstSym] ||
    lineKeys.some((key) => serializers[key] || stringifiers[key])
  ) {
    return undefined
  }
  const now = time as () => string
  const write = (stream.write as (line: string) => void).bind(stream)
  const ending = `,"msg":"${completed}"${end}`
  return ({ requestId, method, url, remoteAddress, statusCode, responseTime }) => {
    // pino leaves an undefined field out.
    write(
      `${levelField}${now()}${bindings},"requestId":${jsonString(requestId)},"method":${jsonString(method)},"url":${jsonString(url)}${remoteAddress === undefined ? '' : `,"remoteAddress":${jsonString(remoteAddress)}`},"statusCode":${statusCode},"responseTime":${Number.isFinite(responseTime) ? responseTime : null}${ending}`,
    )
  }
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

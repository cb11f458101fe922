// What the service logs per request, and what that costs when nobody reads it.
//
// Fastify's own request logging writes two lines per request (`incoming request`, `request
// completed`) through a pino child logger made for every request: at info that was a fifth of the
// busy time of GET /events/<id>, and the child was made even at warn, where nothing is written.
// Here instead:
// - one line per answered request (`request completed`: request id, method, URL, client address,
//   status, time), at info, written through the root logger as one flat object (ACCESS_LOG=false:
//   none); at debug, a line as each request starts (`incoming request`) too;
// - `request.log` makes its child logger (which carries the request id into every line the request
//   writes, warnings and errors alike) on its first line only, so a request that logs nothing
//   makes none.
import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify'

type Bindings = Parameters<FastifyBaseLogger['child']>[0]
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'

/** Whether `logger` writes lines at `level` (a logger that cannot tell is taken to write them). */
const enabled = (logger: FastifyBaseLogger, level: Level): boolean => {
  const check = (logger as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled
  return check === undefined || check.call(logger, level)
}

/** Fastify's per-request log lines, replaced by the access line (one per response). */
export class AccessLog extends LogController {
  readonly #lines: boolean

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
    if (!this.#lines || !enabled(log, 'info')) return
    log.info(lineOf(request, reply), 'request completed')
  }
}

const lineOf = (request: FastifyRequest, reply: FastifyReply) => ({
  requestId: request.id,
  method: request.method,
  url: request.url,
  // request.ip follows TRUST_PROXY; undefined (and left out) once the client has gone.
  remoteAddress: request.ip,
  statusCode: reply.statusCode,
  responseTime: reply.elapsedTime,
})

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

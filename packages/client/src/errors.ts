// What can go wrong when the client talks to the service, as typed errors a caller can tell
// apart: the service said no (ProblemError, with the RFC 9457 body), it answered something this
// client does not understand (UnexpectedResponseError), or there was no answer (NetworkError).
import type { Problem } from './contract/representations.ts'

/** Every error this client throws. */
export class ClientError extends Error {
  override name = 'ClientError'
}

/** The service answered with a problem body (CONTRACT.md §5). */
export class ProblemError extends ClientError {
  override name = 'ProblemError'
  readonly status: number
  readonly type: string
  readonly title: string
  readonly detail: string
  /** For validation failures (422, 400): which fields, as JSON Pointers into the request body. */
  readonly errors: NonNullable<Problem['errors']>
  /** Seconds to wait before trying again, from Retry-After (429, 503), when the service sent it. */
  readonly retryAfter: number | undefined

  constructor(
    readonly problem: Problem,
    /** The request that failed, `METHOD url`. */
    readonly request: string,
    retryAfter?: number,
  ) {
    super(`${problem.status} ${problem.title}: ${problem.detail}`)
    this.status = problem.status
    this.type = problem.type
    this.title = problem.title
    this.detail = problem.detail
    this.errors = problem.errors ?? []
    this.retryAfter = retryAfter
  }

  /** 412: the resource changed since it was read. Read it again, reapply the change, retry. */
  get preconditionFailed(): boolean {
    return this.status === 412
  }
}

/** An answer that is neither what was asked for nor a problem body (a proxy's HTML error page, say). */
export class UnexpectedResponseError extends ClientError {
  override name = 'UnexpectedResponseError'
  constructor(
    readonly status: number,
    readonly contentType: string | undefined,
    /** The start of the body, for the person reading the message. */
    readonly excerpt: string,
    readonly request: string,
  ) {
    super(
      `${request}: unexpected answer ${status} ${contentType ?? 'without Content-Type'}` +
        (excerpt ? `: ${excerpt}` : ''),
    )
  }
}

/** No answer at all: the connection was refused, reset or timed out, or the URL is wrong. */
export class NetworkError extends ClientError {
  override name = 'NetworkError'
  constructor(
    readonly request: string,
    options: ErrorOptions,
  ) {
    super(`${request}: ${causeText(options.cause)}`, options)
  }
}

function causeText(cause: unknown): string {
  if (cause instanceof AggregateError && cause.errors.length > 0) return causeText(cause.errors[0])
  const code = (cause as { code?: unknown } | undefined)?.code
  const message = cause instanceof Error ? cause.message : String(cause)
  return typeof code === 'string' && !message.includes(code) ? `${code} ${message}` : message
}

/** True when `error` is a 412: the ETag sent with If-Match was stale. */
export const isPreconditionFailed = (error: unknown): error is ProblemError =>
  error instanceof ProblemError && error.status === 412

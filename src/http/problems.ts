// The one place where every error becomes an RFC 9457 problem body. Domain codes map to statuses
// here; Fastify's own client errors keep their status; anything else is a bug: logged with the
// request id, answered 500 with nothing internal.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { mediaTypes } from '../contract/media-types.ts'
import { maxFieldErrors, type Problem, visibleText } from '../contract/schemas.ts'
import { dateTimePattern } from '../domain/dates.ts'
import { DomainError, type ErrorCode, echo, type FieldProblem } from '../domain/errors.ts'

const statusOf: Record<ErrorCode, number> = {
  bad_request: 400,
  bad_paging: 400,
  bad_filter: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  in_use: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_fields: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  unavailable: 503,
  overloaded: 503,
  too_costly: 503,
}

// RFC 9110 §15 reason phrases, used as the title: with type "about:blank" the title must be the
// status's phrase (RFC 9457 §4.2.1).
const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

/** CONTRACT.md §5: a problem body never echoes more than this many characters of the request. */
export const maxEchoedCharacters = 100

// Request text marked by echo() (domain/errors.ts), and any mark left unpaired.
const echoed = /\uE000([^\uE000\uE001]*)\uE001/g
const marks = /[\uE000\uE001]/g

/**
 * Each piece of request text quoted in `text`, cut to its first 100 characters (code points, so no
 * surrogate pair is split) and an ellipsis. Every string of a problem body passes through here:
 * this is the one place the cap is applied, whatever quoted the text and wherever.
 */
export function capEchoes(text: string): string {
  if (!text.includes('\uE000')) return text
  return text
    .replace(echoed, (_, quoted: string) => {
      if (quoted.length <= maxEchoedCharacters) return quoted
      const points = Array.from(quoted)
      return points.length <= maxEchoedCharacters
        ? quoted
        : `${points.slice(0, maxEchoedCharacters).join('')}…`
    })
    .replace(marks, '')
}

export function problem(status: number, detail: string, errors?: readonly FieldProblem[]): Problem {
  return {
    type: 'about:blank',
    title: titles[status] ?? 'Error',
    status,
    detail: capEchoes(detail),
    ...(errors &&
      errors.length > 0 && {
        errors: errors.map((e) => ({ pointer: capEchoes(e.pointer), detail: capEchoes(e.detail) })),
      }),
  }
}

/**
 * The answer of a problem: its status and fields set on the reply (those set before, Allow,
 * WWW-Authenticate…, are kept), its bytes returned for the handler to resolve to (resource.ts Body).
 */
export function problemBody(reply: FastifyReply, body: Problem): Buffer {
  // CONTRACT.md §5: a 503 says when to retry (RFC 9110 §10.2.3); a handler's own value is kept.
  if (body.status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', '5')
  // Node's reason phrases predate RFC 9110 (422 "Unprocessable Entity"): keep status line and title alike.
  // HTTP/2 has no reason phrase (RFC 9113 §8.3.2).
  if (reply.request.raw.httpVersionMajor !== 2) reply.raw.statusMessage = body.title
  // Framework errors (bad URL encoding) skip the onSend hooks: these two fields must not depend on them.
  reply.header('x-request-id', reply.request.id).header('vary', 'Accept')
  // Bytes, so Fastify sends the media type exactly as given (it appends a charset to JSON strings).
  reply.code(body.status).type(mediaTypes.problem)
  return Buffer.from(JSON.stringify(body))
}

export function problemFor(error: unknown, request: FastifyRequest): Problem {
  if (error instanceof DomainError) {
    // The client hears only "unavailable"; the log keeps what the driver said.
    if (error.code === 'unavailable') request.log.warn({ err: error.cause ?? error }, 'database unavailable')
    return problem(statusOf[error.code], error.message, error.fields)
  }
  const fastifyError = error as FastifyError
  if (fastifyError.validation) {
    const all = fastifyError.validation.map((v) => ({
      pointer: pointerOf(v.instancePath, v.params),
      detail:
        unknownFieldHint(request, v.keyword, v.instancePath, v.params.additionalProperty) ??
        friendlier[`${v.keyword}:${v.params.format ?? v.params.pattern ?? ''}`] ??
        (v.message === undefined ? 'is invalid' : echo(v.message)),
    }))
    // A date-time refused by both its format and its pattern (contract/schemas.ts) is one problem.
    // At most maxFieldErrors: a body of many unknown fields would otherwise make an answer larger
    // than the request (a body's worth of pointers).
    const errors = all
      .filter((e, i) => all.findIndex((o) => o.pointer === e.pointer && o.detail === e.detail) === i)
      .slice(0, maxFieldErrors)
    const status = request.routeOptions.config.validationStatus ?? 422
    const detail = errors.map((e) => `${e.pointer || '/'} ${e.detail}`).join('; ')
    return problem(status, `the request body is not acceptable: ${detail}`, errors)
  }
  const status = fastifyError.statusCode
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return problem(status, clientMessage(fastifyError))
  }
  request.log.error({ err: error }, 'unhandled error')
  return problem(500, `an internal error occurred; quote request id ${request.id} when reporting it`)
}

// Ajv's wording for the two rules it cannot say plainly by itself.
const dateTimeDetail =
  'must be a real RFC 3339 date-time such as 2026-12-04T19:30:00Z, at most to the millisecond'
const friendlier: Record<string, string> = {
  'format:date-time': dateTimeDetail,
  [`pattern:${dateTimePattern}`]: dateTimeDetail,
  [`pattern:${visibleText}`]: 'must contain something other than whitespace and invisible characters',
}

/** The operation's own words for a top-level member its body may not carry (Operation.unknownFieldHints). */
function unknownFieldHint(request: FastifyRequest, keyword: string, path: string, name: unknown) {
  const hints = request.routeOptions.config.operation?.unknownFieldHints
  if (keyword !== 'additionalProperties' || path !== '' || typeof name !== 'string' || !hints)
    return undefined
  // Own members only: a body member named "constructor" must not find Object.prototype's.
  return Object.hasOwn(hints, name) ? hints[name] : undefined
}

function pointerOf(instancePath: string, params: Record<string, unknown>): string {
  // Ajv reports a missing or unexpected property on its parent; point at the property itself.
  const name = params.missingProperty ?? params.additionalProperty
  // Member names come from the request: quoted, so the problem builder caps them.
  const path = instancePath === '' ? '' : echo(instancePath)
  return typeof name === 'string' ? `${path}/${echo(escapePointer(name))}` : path
}

const escapePointer = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1')

function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'the request body is larger than this service accepts'
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'the request body has a media type this resource does not accept'
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'the request body is empty'
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Content-Length does not match the body'
    default:
      // Fastify's own wording may quote the request (a URL, a header): quoted as a whole.
      return echo(error.message)
  }
}

// What happens to every request of a declared operation before its handler runs, in order:
// authenticate (credentials that are sent are checked on reads too: 401/429; writes need an
// editor: 401/403; http/authenticate.ts), negotiate the response type (406; the handler labels its
// response with `request.representation`), check the body's media type (415), count the request
// against its rate limit (429; http/rate-limit.ts), then, after parsing, insist on a body where one
// is required (400).
//
// These are hooks of each operation's own route, added as the route is registered (Fastify's
// onRoute), with the operation at hand: a route without an operation (404, 405, assets, docs)
// runs none of them, a route without a body runs no preValidation, and no request looks its
// operation up (Fastify builds request.routeOptions anew on every read).
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preValidationHookHandler,
} from 'fastify'
import { DomainError, echo } from '../domain/errors.ts'
import type { User } from '../domain/types.ts'
import type { Authenticate } from './authenticate.ts'
import { hasContent } from './body.ts'
import { parseContentType, responseType } from './negotiate.ts'
import { type RateLimiter, unlimited } from './rate-limit.ts'
import { acceptFieldOf, type Method, type Operation } from './resource.ts'

export interface PipelineSteps {
  readonly authenticate: Authenticate
  /** Absent when no rate limit is on. */
  readonly limit?: RateLimiter | undefined
  /** preValidation steps of every operation that takes a body (signed-body checks). */
  readonly bodySteps?: readonly preValidationHookHandler[]
}

/** Adds the pipeline's hooks to every route of a declared operation registered after this. */
export function registerPipeline(app: FastifyInstance, steps: PipelineSteps): void {
  app.addHook('onRoute', (route) => {
    const { operation, method } = route.config ?? {}
    if (!operation || !method) return
    // New arrays: the HEAD route Fastify adds beside a GET is registered from the GET's own options.
    route.onRequest = [
      ...hooksOf(route.onRequest),
      accepting(
        operation,
        method,
        route.url,
        steps.authenticate,
        unlimited(route.url) ? undefined : steps.limit,
      ),
    ]
    if (operation.consumes) {
      route.preValidation = [
        ...hooksOf(route.preValidation),
        ...(steps.bodySteps ?? []),
        requiringBody(operation),
      ]
    }
  })
}

/**
 * The pipeline's authentication alone, as a read, for routes that are no operation of the route
 * table (the reference page and its assets, served by @fastify/swagger-ui): credentials that are
 * sent are checked there as on every other read (401, 429); none are needed.
 */
export function checkingCredentials(authenticate: Authenticate): onRequestHookHandler {
  return (request, reply, done) => {
    let checking: Promise<User> | undefined
    try {
      checking = authenticate(request, reply, false)
    } catch (error) {
      return done(error as Error)
    }
    if (!checking) return done()
    checking.then(
      (principal) => {
        request.principal = principal
        done()
      },
      (error: Error) => done(error),
    )
  }
}

const hooksOf = <H>(hooks: H | H[] | undefined): H[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]

// Callbacks, not async functions: they run for every request, and a read without credentials
// (most of them) waits for nothing.
function accepting(
  operation: Operation,
  method: Method,
  url: string,
  authenticate: Authenticate,
  limit: RateLimiter | undefined,
): onRequestHookHandler {
  const write = operation.write === true
  const deferrable = write && operation.confirmsCredentials === true
  /** The refusal, or the rate limit's judgement once the request is accepted. */
  const judged = (request: FastifyRequest, reply: FastifyReply) =>
    accepts(request, reply, operation, method, url) ?? limit?.(request, reply, write) ?? null
  const finish = (
    judgement: DomainError | null | Promise<DomainError | null>,
    done: (error?: Error) => void,
  ) => {
    if (!(judgement instanceof Promise)) return done(judgement ?? undefined)
    judgement.then(
      (refusal) => done(refusal ?? undefined),
      (error: Error) => done(error),
    )
  }
  /** Authentication in full, for a principal the write found changed (confirmedWrite). */
  const confirmed = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await authenticate(request, reply, write)
    if (!user) throw new DomainError('unauthenticated', 'this request needs credentials')
    return user
  }
  return (request, reply, done) => {
    let checking: Promise<User> | undefined
    try {
      checking = authenticate(request, reply, write, deferrable)
    } catch (error) {
      return done(error as Error)
    }
    if (!checking) return finish(judged(request, reply), done)
    checking.then(
      (principal) => {
        request.principal = principal
        if (principal.unconfirmed) request.confirmPrincipal = () => confirmed(request, reply)
        finish(judged(request, reply), done)
      },
      (error: Error) => done(error),
    )
  }
}

function requiringBody(operation: Operation): preValidationHookHandler {
  return (request, _reply, done) => {
    if (request.body !== undefined) return done()
    if (operation.bodyRequired)
      return done(new DomainError('bad_request', `${request.method} needs a JSON request body`))
    // An optional body that is absent or empty means "no parameters".
    request.body = {}
    done()
  }
}

/**
 * Negotiates the response's type (406; the chosen one becomes `request.representation`) and checks
 * the body's type (415): the refusal, or undefined when the operation can serve the request.
 */
function accepts(
  request: FastifyRequest,
  reply: FastifyReply,
  operation: Operation,
  method: Method,
  url: string,
): DomainError | undefined {
  if (operation.produces) {
    const chosen = responseType(request.headers.accept, operation.produces)
    if (!chosen) {
      return new DomainError(
        'not_acceptable',
        `this resource is available as ${operation.produces.join(', ')}`,
      )
    }
    request.representation = chosen
  }

  if (!hasContent(request)) return undefined
  if (!operation.consumes) {
    return new DomainError('unsupported_media_type', `${method} ${url} takes no request body`)
  }
  const contentType = parseContentType(request.headers['content-type'])
  if (
    contentType &&
    operation.consumes.includes(contentType.type) &&
    (contentType.charset === undefined || contentType.charset === 'utf-8')
  ) {
    return undefined
  }
  const field = acceptFieldOf(method)
  if (field) reply.header(field, operation.consumes.join(', '))
  return new DomainError(
    'unsupported_media_type',
    `the request body must be ${operation.consumes.join(' or ')} in UTF-8` +
      (contentType ? `, not ${echo(request.headers['content-type'] ?? '')}` : ''),
  )
}

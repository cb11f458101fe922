// What happens to every request of a declared operation before its handler runs, in order:
// authenticate (credentials that are sent are checked on reads too: 401/429; writes need an
// editor: 401/403; http/authenticate.ts), negotiate the response type (406; the handler labels its response with
// `request.representation`), check the body's media type (415), then, after parsing, insist on a
// body where one is required (400).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DomainError } from '../domain/errors.ts'
import type { User } from '../domain/types.ts'
import type { Authenticate } from './authenticate.ts'
import { hasContent } from './body.ts'
import { parseContentType, responseType } from './negotiate.ts'
import { acceptFieldOf, type Method, type Operation } from './resource.ts'

export function registerPipeline(app: FastifyInstance, authenticate: Authenticate): void {
  // Callbacks, not async functions: they run for every request, and a read without credentials
  // (most of them) waits for nothing.
  app.addHook('onRequest', (request, reply, done) => {
    const { operation, method } = request.routeOptions.config
    if (!operation || !method) return done()
    let checking: Promise<User> | undefined
    try {
      checking = authenticate(request, reply, operation.write === true)
    } catch (error) {
      return done(error as Error)
    }
    if (!checking) return done(accepts(request, reply, operation, method))
    checking.then(
      (principal) => {
        request.principal = principal
        done(accepts(request, reply, operation, method))
      },
      (error: Error) => done(error),
    )
  })

  app.addHook('preValidation', (request, _reply, done) => {
    const { operation } = request.routeOptions.config
    if (!operation?.consumes || request.body !== undefined) return done()
    if (operation.bodyRequired)
      return done(new DomainError('bad_request', `${request.method} needs a JSON request body`))
    // An optional body that is absent or empty means "no parameters".
    request.body = {}
    done()
  })
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
    return new DomainError(
      'unsupported_media_type',
      `${method} ${request.routeOptions.url} takes no request body`,
    )
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
      (contentType ? `, not ${request.headers['content-type']}` : ''),
  )
}

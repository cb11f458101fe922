// What happens to every request of a declared operation before its handler runs, in order:
// authenticate (credentials that are sent are checked on reads too: 401/429; writes need an
// editor: 401/403; http/authenticate.ts), negotiate the response type (406; the handler labels its response with
// `request.representation`), check the body's media type (415), then, after parsing, insist on a
// body where one is required (400).
import type { FastifyInstance } from 'fastify'
import { DomainError } from '../domain/errors.ts'
import type { Authenticate } from './authenticate.ts'
import { hasContent } from './body.ts'
import { parseContentType, responseType } from './negotiate.ts'
import { acceptFieldOf } from './resource.ts'

export function registerPipeline(app: FastifyInstance, authenticate: Authenticate): void {
  app.addHook('onRequest', async (request, reply) => {
    const { operation, method } = request.routeOptions.config
    if (!operation || !method) return

    const principal = await authenticate(request, reply, operation.write === true)
    if (principal) request.principal = principal

    if (operation.produces) {
      const chosen = responseType(request.headers.accept, operation.produces)
      if (!chosen) {
        throw new DomainError(
          'not_acceptable',
          `this resource is available as ${operation.produces.join(', ')}`,
        )
      }
      request.representation = chosen
    }

    if (!hasContent(request)) return
    if (!operation.consumes) {
      throw new DomainError(
        'unsupported_media_type',
        `${method} ${request.routeOptions.url} takes no request body`,
      )
    }
    const contentType = parseContentType(request.headers['content-type'])
    if (
      !contentType ||
      !operation.consumes.includes(contentType.type) ||
      (contentType.charset !== undefined && contentType.charset !== 'utf-8')
    ) {
      const field = acceptFieldOf(method)
      if (field) reply.header(field, operation.consumes.join(', '))
      throw new DomainError(
        'unsupported_media_type',
        `the request body must be ${operation.consumes.join(' or ')} in UTF-8` +
          (contentType ? `, not ${request.headers['content-type']}` : ''),
      )
    }
  })

  // A callback, not an async function: it runs for every request and mostly does nothing.
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

// The fields every answer carries, whatever route or error made it: nosniff (and HSTS over TLS),
// the request id, Connection: close while the service drains, Vary by Accept (and Origin with
// CORS on), and JSON types without the charset Fastify appends.
import type { FastifyInstance } from 'fastify'
import type { AnswerStep } from './answer-steps.ts'

export interface AnswerFieldsSettings {
  /** Fields set as they are on every answer (nosniff, HSTS). */
  readonly constant: Readonly<Record<string, string>>
  /** Whether CORS is on: the CORS fields then depend on Origin. */
  readonly cors: boolean
}

/** The step that sets them (answer-steps.ts); from the app's preClose on, it closes connections. */
export function answerFields(app: FastifyInstance, settings: AnswerFieldsSettings): AnswerStep {
  // A response finished during a drain closes its connection, so a keep-alive client does not hold
  // the exit up until its idle timeout (Fastify does this only for requests that arrive later).
  let draining = false
  app.addHook('preClose', async () => {
    draining = true
  })
  const varyFields = settings.cors ? ['Accept', 'Origin'] : ['Accept']
  const varyValue = varyFields.join(', ')
  const constant = settings.constant
  return (request, reply, payload) => {
    reply.headers(constant)
    reply.header('x-request-id', request.id)
    if (draining) reply.header('connection', 'close')
    // HTTP/2 has no Connection field (RFC 9113 §8.2.2; its sessions close with GOAWAY), whoever set
    // it here (a drain, a refused body, a feed; Fastify itself after a body error).
    if (request.raw.httpVersionMajor === 2) reply.removeHeader('connection')
    // JSON types define no charset parameter (RFC 8259 §11) and the contract wants the exact
    // type, but Fastify appends one to every JSON-like type.
    const type = reply.getHeader('content-type')
    if (typeof type === 'string' && type.endsWith('json; charset=utf-8')) {
      reply.header('content-type', type.slice(0, -'; charset=utf-8'.length))
    }
    // Every representation is chosen by Accept (CONTRACT.md §1), errors included; with CORS on,
    // the CORS fields depend on Origin (Fetch standard, "CORS protocol and HTTP caches"). Added
    // here, after problems.ts may have replaced the field.
    const vary = reply.getHeader('vary')
    if (vary === undefined) reply.header('vary', varyValue)
    else {
      for (const field of varyFields) {
        const current = reply.getHeader('vary')
        const named = typeof current === 'string' ? current.toLowerCase().split(',') : []
        if (!named.some((token) => token.trim() === field.toLowerCase())) {
          reply.header('vary', typeof current === 'string' && current !== '' ? `${current}, ${field}` : field)
        }
      }
    }
    return payload
  }
}

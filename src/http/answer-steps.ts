// The last rules every answer passes before it is sent, in one onSend hook: Link and Location at
// the proxy's address (forwarded.ts), the challenges of a 401 (signature-auth.ts), the fields
// every answer carries (answer-fields.ts), then the content coding (compression.ts), which must
// see the final body, ETag and Vary. Each was an onSend hook of its own, and Fastify's hook runner
// made a call through its `next` closure per hook and per answer: on a 304 that runner was the
// largest single cost of Fastify's own code in a CPU profile.
//
// A hook added to the app (`app.addHook('onSend', …)`) still runs for every answer, before or
// after these as it was added: this is one hook among them, not a path beside them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/**
 * One rule every answer passes, synchronously: the payload to send on (the one given, or another,
 * such as the coded body). Throwing refuses the answer as an onSend hook's error does.
 */
export type AnswerStep = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => unknown

/** Runs `steps` (absent ones skipped) in order, as one onSend hook, on every answer of `app`. */
export function registerAnswerSteps(app: FastifyInstance, steps: readonly (AnswerStep | undefined)[]): void {
  const chosen = steps.filter((step): step is AnswerStep => step !== undefined)
  app.addHook('onSend', (request, reply, payload, done) => {
    let sent: unknown = payload
    try {
      for (const step of chosen) sent = step(request, reply, sent)
    } catch (error) {
      return done(error as Error)
    }
    done(null, sent)
  })
}

// The last rules every answer passes before it is sent, in one onSend hook: Link and Location at
// the proxy's address (forwarded.ts), the challenges of a 401 (signature-auth.ts), the fields
// every answer carries (answer-fields.ts), then the content coding (compression.ts), which must
// see the final body, ETag and Vary. Each was an onSend hook of its own, and Fastify's hook runner
// made a call through its `next` closure per hook and per answer: on a 304 that runner was the
// largest single cost of Fastify's own code in a CPU profile.
//
// A hook added to the app (`app.addHook('onSend', …)`) still runs for every answer, before or
// after these as it was added: this is one hook among them, not a path beside them.
//
// An answer whose body is already whole (none, a string, bytes) is then sent at the end of the
// event loop's turn, with every other answer finished in that turn (atTurnEnd), rather than at
// once: the answers to the requests that one poll of the sockets brought are written back to back.
// Each write to a client on the same host (nginx in front, a load generator) runs the receiving
// side's TCP and wakes its reader; a reader woken by the first answer of a run is still awake for
// the next ones, where answers spread out over the turn woke it once each. Measured on SQLite
// (docs/performance.md, "A seventh machine"): a 304 ~29 -> ~24.5 µs of CPU, a page of 20
// 272 -> 211 µs. The wait is at most what is left of one turn. A streamed body (the change feed)
// goes at once.
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
    if (whole(sent)) atTurnEnd(done, sent)
    else done(null, sent)
  })
}

type Done = (error: Error | null, payload: unknown) => void

/** No body, or one in memory: what Fastify writes with one end(). */
const whole = (payload: unknown) =>
  payload === undefined || payload === null || typeof payload === 'string' || ArrayBuffer.isView(payload)

/** Answers waiting for the end of the turn: done, payload, done, payload… */
let waiting: unknown[] = []

/** Hands `payload` on to `done` at the end of this turn of the event loop (its check phase). */
export function atTurnEnd(done: Done, payload: unknown): void {
  if (waiting.length === 0) setImmediate(sendWaiting)
  waiting.push(done, payload)
}

function sendWaiting(): void {
  const answers = waiting
  waiting = []
  for (let i = 0; i < answers.length; i += 2) {
    try {
      ;(answers[i] as Done)(null, answers[i + 1])
    } catch (error) {
      // A bug, thrown as it would have been, once the other answers are on their way.
      queueMicrotask(() => {
        throw error
      })
    }
  }
}

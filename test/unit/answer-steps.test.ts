// The last rules of every answer (src/http/answer-steps.ts): a whole answer waits for the end of
// the event loop's turn and leaves with the others of that turn, in order; a streamed one goes at once.
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import { atTurnEnd, registerAnswerSteps } from '../../src/http/answer-steps.ts'

/** An app whose answers pass the steps, then a hook that notes whether the turn's check phase had come. */
async function appSeeingTheTurn(body: () => unknown) {
  const app = Fastify()
  registerAnswerSteps(app, [
    (_request, reply, payload) => {
      reply.header('x-step', 'ran')
      return payload
    },
  ])
  const seen: string[] = []
  let checkPhase = false
  app.addHook('onSend', (_request, _reply, payload, done) => {
    seen.push(checkPhase ? 'after the turn' : 'in the turn')
    done(null, payload)
  })
  app.get('/', async () => {
    // Runs in the check phase of this turn; an answer sent at once is passed on before it.
    setImmediate(() => {
      checkPhase = true
    })
    return body()
  })
  await app.ready()
  return { app, seen }
}

describe('the answer steps', () => {
  it('send a whole answer at the end of the turn, with every step and later hook applied', async () => {
    const { app, seen } = await appSeeingTheTurn(() => ({ whole: true }))
    const answer = await app.inject({ url: '/' })
    assert.equal(answer.statusCode, 200)
    assert.deepEqual(answer.json(), { whole: true })
    assert.equal(answer.headers['x-step'], 'ran')
    assert.deepEqual(seen, ['after the turn'])
    await app.close()
  })

  it('send a streamed answer at once', async () => {
    const { app, seen } = await appSeeingTheTurn(() => Readable.from(['streamed']))
    const answer = await app.inject({ url: '/' })
    assert.equal(answer.body, 'streamed')
    assert.equal(answer.headers['x-step'], 'ran')
    assert.deepEqual(seen, ['in the turn'])
    await app.close()
  })

  it('hand on the answers of one turn together, in the order they finished', async () => {
    const handed: string[] = []
    const done = (name: string) => (error: Error | null, payload: unknown) => {
      assert.equal(error, null)
      handed.push(`${name}:${String(payload)}`)
    }
    atTurnEnd(done('first'), 'a')
    atTurnEnd(done('second'), 'b')
    await Promise.resolve()
    assert.deepEqual(handed, [], 'nothing before the check phase')
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(handed, ['first:a', 'second:b'])
    atTurnEnd(done('third'), null)
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(handed, ['first:a', 'second:b', 'third:null'])
  })
})

import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { describe, it } from 'node:test'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { rateLimiter } from '../../src/http/rate-limit.ts'
import { MemoryCounters } from '../../src/http/rate-limit-store.ts'

/** Counters in memory that also tell how often they were hit. */
function countingCounters() {
  const memory = new MemoryCounters()
  const counted = { hits: 0 }
  return {
    counted,
    counters: {
      hit: (key: string, windowMs: number) => {
        counted.hits++
        return memory.hit(key, windowMs)
      },
      state: () => undefined,
      close: async () => {},
    },
  }
}

/** The parts of Fastify's request and reply the limiter reads and writes. */
function exchange(raw: IncomingMessage) {
  const fields: Record<string, string> = {}
  const reply = {
    header(name: string, value: string) {
      fields[name] = value
      return reply
    },
  }
  return {
    request: { raw, ip: '192.0.2.1' } as unknown as FastifyRequest,
    reply: reply as unknown as FastifyReply,
    fields,
  }
}

describe('rateLimiter', () => {
  it('counts a read once when it was counted for a direct answer and then handed over', () => {
    const { counted, counters } = countingCounters()
    const limit = rateLimiter({ reads: 1, writes: 0, counters })
    assert.ok(limit)
    assert.equal((limit.countRead('192.0.2.1') as { refusal: unknown }).refusal, null)
    const raw = {} as IncomingMessage
    const verdict = limit.countRead('192.0.2.1')
    assert.ok(verdict && !(verdict instanceof Promise) && verdict.refusal)
    assert.equal(counted.hits, 2)

    limit.handOver(raw, verdict)
    const { request, reply, fields } = exchange(raw)
    assert.equal(limit(request, reply, false), verdict.refusal)
    assert.equal(counted.hits, 2, 'the handed-over read is not counted again')
    assert.deepEqual(Object.keys(fields), ['ratelimit-policy', 'ratelimit', 'retry-after'])
    assert.match(fields.ratelimit ?? '', /^"reads";r=0;t=\d+$/)

    // Any other request is counted as usual.
    const other = exchange({} as IncomingMessage)
    assert.ok(limit(other.request, other.reply, false))
    assert.equal(counted.hits, 3)
  })

  it('counts nothing for a direct answer when reads are unlimited', () => {
    const { counted, counters } = countingCounters()
    const limit = rateLimiter({ reads: 0, writes: 5, counters })
    assert.equal(limit?.countRead('192.0.2.1'), undefined)
    assert.equal(counted.hits, 0)
  })
})

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
  it('counts each read once: within the limit null, beyond it the refusal with its fields', () => {
    const { counted, counters } = countingCounters()
    const limit = rateLimiter({ reads: 1, writes: 0, counters })
    assert.ok(limit)
    const first = exchange({} as IncomingMessage)
    assert.equal(limit(first.request, first.reply, false), null)
    const second = exchange({} as IncomingMessage)
    assert.ok(limit(second.request, second.reply, false))
    assert.equal(counted.hits, 2)
    assert.deepEqual(Object.keys(second.fields), ['ratelimit-policy', 'ratelimit', 'retry-after'])
    assert.match(second.fields.ratelimit ?? '', /^"reads";r=0;t=\d+$/)
  })

  it('counts no read when reads are unlimited', () => {
    const { counted, counters } = countingCounters()
    const limit = rateLimiter({ reads: 0, writes: 5, counters })
    assert.ok(limit)
    const read = exchange({} as IncomingMessage)
    assert.equal(limit(read.request, read.reply, false), null)
    assert.equal(counted.hits, 0)
  })
})

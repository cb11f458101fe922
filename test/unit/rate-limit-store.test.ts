import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { MemoryCounters } from '../../src/http/rate-limit-store.ts'

/** Counters on a clock the test moves. */
function counters(maxKeys?: number) {
  let now = 1_000_000
  return {
    counters: new MemoryCounters({ now: () => now, ...(maxKeys !== undefined && { maxKeys }) }),
    advance(ms: number) {
      now += ms
    },
  }
}

describe('MemoryCounters', () => {
  it('counts hits in a window that opens at the first hit, and opens a new one once it ends', async () => {
    const { counters: c, advance } = counters()
    assert.deepEqual(await c.hit('a', 60_000), { count: 1, resetMs: 60_000 })
    advance(20_000)
    assert.deepEqual(await c.hit('a', 60_000), { count: 2, resetMs: 40_000 })
    assert.deepEqual(await c.hit('b', 60_000), { count: 1, resetMs: 60_000 }, 'keys are apart')
    advance(40_000)
    assert.deepEqual(await c.hit('a', 60_000), { count: 1, resetMs: 60_000 }, 'the window ended')
  })

  it('keeps at most maxKeys windows, dropping ended ones first, then the oldest', async () => {
    const { counters: c, advance } = counters(2)
    await c.hit('a', 1_000)
    advance(500)
    await c.hit('b', 60_000)
    advance(600)
    await c.hit('c', 60_000)
    assert.equal(c.size, 2, 'the ended window of a went first')
    await c.hit('d', 60_000)
    assert.equal(c.size, 2)
    assert.equal((await c.hit('c', 60_000)).count, 2, 'c, newer than b, is kept')
    assert.equal((await c.hit('b', 60_000)).count, 1, 'b, the oldest, was dropped')
  })

  it('never counts more hits in a window than were made, nor reports a window longer than asked', () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 30_000 })), {
          maxLength: 60,
        }),
        async (hits) => {
          const { counters: c, advance } = counters()
          const made = new Map<string, number>()
          for (const [key, wait] of hits) {
            advance(wait)
            const { count, resetMs } = await c.hit(key, 60_000)
            made.set(key, (made.get(key) ?? 0) + 1)
            assert.ok(count >= 1 && count <= (made.get(key) ?? 0))
            assert.ok(resetMs > 0 && resetMs <= 60_000)
          }
        },
      ),
    ))
})

// The bulkhead (store/bulkhead.ts): at most `slots` at once, the rest in arrival order, a refusal
// at the wait's deadline without running the work, and a slot freed however the work ends.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Bulkhead } from '../../src/store/bulkhead.ts'

const refusal = () => new Error('refused')

describe('bulkhead', () => {
  it('runs at most its slots at once, the rest first come first served', async () => {
    const bulkhead = new Bulkhead(2)
    let running = 0
    let most = 0
    const order: number[] = []
    const work = (n: number) => async () => {
      running++
      most = Math.max(most, running)
      order.push(n)
      await sleep(10)
      running--
      return n
    }
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => bulkhead.run(work(n), 1_000, refusal)))
    assert.deepEqual(results, [1, 2, 3, 4, 5])
    assert.equal(most, 2)
    assert.deepEqual(order, [1, 2, 3, 4, 5])
    const stats = bulkhead.stats()
    assert.equal(stats.queued, 0)
    assert.equal(stats.waits, 3)
    assert.equal(stats.refused, 0)
    assert.ok(stats.waitedMs > 0)
  })

  it('refuses what waits past its limit, without running it, and frees slots on failure', async () => {
    const bulkhead = new Bulkhead(1)
    let release: () => void = () => {}
    const holding = bulkhead.run(() => new Promise<void>((resolve) => (release = resolve)), 0, refusal)
    let ran = false
    const waiting = bulkhead.run(
      async () => {
        ran = true
      },
      20,
      refusal,
    )
    assert.equal(bulkhead.stats().queued, 1)
    await assert.rejects(waiting, /refused/)
    assert.equal(ran, false)
    assert.deepEqual({ ...bulkhead.stats(), waitedMs: 0 }, { queued: 0, waits: 1, waitedMs: 0, refused: 1 })
    release()
    await holding
    await assert.rejects(
      bulkhead.run(() => Promise.reject(new Error('failed')), 0, refusal),
      /failed/,
    )
    // The failed work gave its slot back: the next runs at once.
    assert.equal(await bulkhead.run(async () => 'next', 0, refusal), 'next')
  })
})

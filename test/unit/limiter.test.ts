import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import fc from 'fast-check'
import { Limiter } from '../../src/auth/limiter.ts'
import { DomainError } from '../../src/domain/errors.ts'

/** Runs tasks through a limiter, recording how many ran at once. */
function tracker() {
  let active = 0
  let peak = 0
  const task =
    <T>(value: T, turns: number, fail = false) =>
    async (): Promise<T> => {
      active++
      peak = Math.max(peak, active)
      try {
        for (let i = 0; i < turns; i++) await nextTurn()
        if (fail) throw new Error(`task ${String(value)} failed`)
        return value
      } finally {
        active--
      }
    }
  return {
    task,
    get active() {
      return active
    },
    get peak() {
      return peak
    },
  }
}

describe('Limiter', () => {
  it('runs a single task and returns its value', async () => {
    const limiter = new Limiter(1)
    assert.equal(await limiter.run(async () => 42), 42)
  })

  it('runs up to max tasks at once and queues the rest', async () => {
    const limiter = new Limiter(2)
    const t = tracker()
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => limiter.run(t.task(n, 3))))
    assert.deepEqual(results, [1, 2, 3, 4, 5])
    assert.equal(t.peak, 2)
    assert.equal(t.active, 0)
  })

  it('starts queued tasks in arrival order', async () => {
    const limiter = new Limiter(1)
    const started: number[] = []
    await Promise.all(
      [1, 2, 3, 4].map((n) =>
        limiter.run(async () => {
          started.push(n)
          await nextTurn()
        }),
      ),
    )
    assert.deepEqual(started, [1, 2, 3, 4])
  })

  it('propagates a rejection to its caller only, and frees the slot', async () => {
    const limiter = new Limiter(1)
    const t = tracker()
    const failing = limiter.run(t.task('a', 2, true))
    const after = limiter.run(t.task('b', 1))
    await assert.rejects(failing, /task a failed/)
    assert.equal(await after, 'b')
    assert.equal(await limiter.run(t.task('c', 1)), 'c')
    assert.equal(t.peak, 1)
  })

  it('frees the slot when the work throws synchronously', async () => {
    const limiter = new Limiter(1)
    const throwing = limiter.run((): Promise<never> => {
      throw new Error('sync')
    })
    await assert.rejects(throwing, /sync/)
    assert.equal(await limiter.run(async () => 'next'), 'next')
  })

  it('keeps working after every slot has failed at once', async () => {
    const limiter = new Limiter(3)
    const t = tracker()
    const failures = [1, 2, 3].map((n) => limiter.run(t.task(n, 1, true)))
    const queued = [4, 5, 6].map((n) => limiter.run(t.task(n, 1)))
    for (const failure of failures) await assert.rejects(failure)
    assert.deepEqual(await Promise.all(queued), [4, 5, 6])
    assert.equal(t.peak, 3)
  })

  it('never runs more than max at once, uses every slot, and completes every task (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        // Every task yields at least once, so it is still running when the next one is submitted.
        fc.array(fc.record({ turns: fc.integer({ min: 1, max: 4 }), fail: fc.boolean() }), { maxLength: 30 }),
        async (max, specs) => {
          const limiter = new Limiter(max)
          const t = tracker()
          const outcomes = await Promise.allSettled(
            specs.map((s, i) => limiter.run(t.task(i, s.turns, s.fail))),
          )
          assert.ok(t.peak <= max, `peak ${t.peak} > max ${max}`)
          // All tasks are submitted at once, so the first min(max, n) start immediately.
          assert.equal(t.peak, Math.min(max, specs.length))
          assert.equal(t.active, 0)
          outcomes.forEach((outcome, i) => {
            if (specs[i]?.fail) assert.equal(outcome.status, 'rejected')
            else assert.deepEqual(outcome, { status: 'fulfilled', value: i })
          })
          // The limiter is whole again: max tasks can run at once.
          const again = tracker()
          await Promise.all(Array.from({ length: max + 1 }, (_, i) => limiter.run(again.task(i, 1))))
          assert.equal(again.peak, max)
        },
      ),
      { numRuns: 150 },
    )
  })

  it('never runs more than max at once when tasks arrive while others finish (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(
          fc.record({ delay: fc.integer({ min: 0, max: 3 }), turns: fc.integer({ min: 0, max: 3 }) }),
          {
            maxLength: 20,
          },
        ),
        async (max, specs) => {
          const limiter = new Limiter(max)
          const t = tracker()
          const runs = specs.map(async (s, i) => {
            for (let k = 0; k < s.delay; k++) await nextTurn()
            return limiter.run(t.task(i, s.turns))
          })
          assert.deepEqual(
            await Promise.all(runs),
            specs.map((_, i) => i),
          )
          assert.ok(t.peak <= max)
          assert.equal(t.active, 0)
        },
      ),
      { numRuns: 150 },
    )
  })
})

describe('Limiter with a bounded queue', () => {
  it('refuses work at once with "overloaded" when the queue is full, and takes work again once it drains', async () => {
    const limiter = new Limiter(1, 1)
    let release = () => {}
    const running = limiter.run(() => new Promise<void>((resolve) => (release = resolve)))
    const queued = limiter.run(async () => 'queued')
    await assert.rejects(
      limiter.run(async () => 'refused'),
      (error: unknown) => error instanceof DomainError && error.code === 'overloaded',
    )
    release()
    await running
    assert.equal(await queued, 'queued')
    assert.equal(await limiter.run(async () => 'again'), 'again')
  })
})

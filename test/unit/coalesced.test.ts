import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { coalesced } from '../../src/store/coalesced.ts'

describe('coalesced background work', () => {
  it('runs at once when idle, and once more for every ask during a run, after the gap', async () => {
    const starts: number[] = []
    let finish: (() => void) | undefined
    const work = () =>
      new Promise<void>((resolve) => {
        starts.push(performance.now())
        finish = resolve
      })
    const job = coalesced(work, () => {}, 40)
    job.send()
    assert.equal(starts.length, 1)
    job.send()
    job.send()
    job.send()
    const first = finish
    first?.()
    await new Promise((resolve) => setTimeout(resolve, 10))
    // Asked three times during the first run: one more run, not yet (the gap).
    assert.equal(starts.length, 1)
    for (let waited = 0; starts.length < 2 && waited < 2_000; waited += 5) {
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    assert.equal(starts.length, 2)
    assert.ok((starts[1] ?? 0) - (starts[0] ?? 0) >= 35)
    finish?.()
    await job.settled()
    // Quiet since: the next ask runs at once.
    job.send()
    assert.equal(starts.length, 3)
    finish?.()
    await job.settled()
  })

  it('without a gap runs again as soon as the run ends, and reports errors without stopping', async () => {
    const errors: unknown[] = []
    let runs = 0
    const job = coalesced(
      async () => {
        runs++
        throw new Error(`run ${runs}`)
      },
      (error) => errors.push(error),
    )
    job.send()
    job.send()
    await job.settled()
    assert.equal(runs, 2)
    assert.equal(errors.length, 2)
  })
})

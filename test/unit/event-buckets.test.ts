import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { BucketRowsEstimate, deepPageOffset, prefersBuckets } from '../../src/store/event-buckets.ts'

describe('prefersBuckets', () => {
  it('pages by OFFSET below the deep-page offset, however few the buckets', () => {
    assert.equal(prefersBuckets(deepPageOffset - 1, 1, 30), false)
    assert.equal(prefersBuckets(deepPageOffset, 1, 30), true)
  })

  it('pages by OFFSET while the buckets would cost more than the rows it steps over', () => {
    // 10,000 events over 19 years: 2,200 bucket rows; SQLite steps over ~30 rows per bucket row.
    assert.equal(prefersBuckets(8_000, 2_200, 30), false)
    assert.equal(prefersBuckets(800_000, 2_200, 30), true)
    assert.equal(prefersBuckets(8_000, 2_200, 2), true)
  })
})

describe('BucketRowsEstimate', () => {
  it('counts once, then answers the known figure while a stale one is recounted in the background', async () => {
    let counts = 0
    let release: (() => void) | undefined
    const estimate = new BucketRowsEstimate(async () => {
      counts++
      if (counts > 1) await new Promise<void>((resolve) => (release = resolve))
      return counts * 100
    }, 0)
    assert.equal(await estimate.rows(), 100)
    // Stale at once (maxAgeMs 0): a recount starts, and the old figure is answered meanwhile.
    assert.equal(await estimate.rows(), 100)
    assert.equal(await estimate.rows(), 100)
    assert.equal(counts, 2, 'one recount at a time')
    release?.()
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(await estimate.rows(), 200)
  })

  it('keeps the old figure when a recount fails', async () => {
    let fail = false
    const estimate = new BucketRowsEstimate(async () => {
      if (fail) throw new Error('database away')
      return 7
    }, 0)
    assert.equal(await estimate.rows(), 7)
    fail = true
    assert.equal(await estimate.rows(), 7)
  })
})

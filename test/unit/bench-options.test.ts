// The bench's warm-up options: seconds before every run, and requests before a scenario's first.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseOptions } from '../../bench/options.ts'

describe('bench warm-up options', () => {
  it('warms every run for 2 s and a first run until 10,000 requests, at most 30 s', () => {
    assert.deepEqual(parseOptions([]).warmup, { seconds: 2, firstRequests: 10_000, firstMaxSeconds: 30 })
  })

  it('takes both from the command line, 0 requests meaning seconds only', () => {
    assert.deepEqual(parseOptions(['--warmup', '5', '--warmup-requests', '0']).warmup, {
      seconds: 5,
      firstRequests: 0,
      firstMaxSeconds: 30,
    })
  })

  it('refuses a warm-up in requests that is no whole number of 0 or more', () => {
    for (const bad of ['-1', '1.5', 'many']) {
      assert.throws(
        () => parseOptions([`--warmup-requests=${bad}`]),
        /--warmup-requests must be a whole number/,
      )
    }
  })

  it('warms a smoke run by requests alone', () => {
    assert.deepEqual(parseOptions(['--smoke']).warmup, { requests: 30 })
  })
})

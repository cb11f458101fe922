// The pre-counted latency histogram writes exactly what prom-client's own Histogram writes for
// the same observations, bucket boundaries included.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import fc from 'fast-check'
import { Histogram, Registry } from 'prom-client'
import { LatencyHistogram } from '../../src/http/latency-histogram.ts'

const buckets = [0.001, 0.01, 0.1, 1]

it('exposes the same text as prom-client’s Histogram', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          status: fc.constantFrom('200', '404'),
          // Bucket bounds themselves among the values: a bound belongs to its own bucket.
          seconds: fc.oneof(fc.constantFrom(...buckets), fc.double({ min: 0, max: 3, noNaN: true })),
        }),
      ),
      async (observations) => {
        const ours = new Registry()
        const theirs = new Registry()
        const latency = new LatencyHistogram('t_seconds', 'help', buckets, ours)
        const reference = new Histogram({
          name: 't_seconds',
          help: 'help',
          labelNames: ['method', 'status'],
          buckets,
          registers: [theirs],
        })
        const series = new Map<string, ReturnType<LatencyHistogram['series']>>()
        for (const { status, seconds } of observations) {
          const labels = { method: 'GET', status }
          let one = series.get(status)
          if (!one) {
            one = latency.series(labels)
            series.set(status, one)
          }
          one.observe(seconds)
          reference.observe(labels, seconds)
        }
        assert.equal(await ours.metrics(), await theirs.metrics())
      },
    ),
  )
})

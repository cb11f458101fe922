// The bench's reading of wrk's report (bench/wrk-driver.ts): throughput, percentiles in any of
// wrk's units, socket errors, and the status codes its script counts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseWrkOutput } from '../../bench/wrk-driver.ts'

const report = (latency: string[], extra = '') => `Running 5s test @ http://127.0.0.1:8080
  1 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   824.06us    1.18ms  20.41ms   92.11%
  Latency Distribution
     50%  ${latency[0]}
     75%  767.00us
     90%    1.60ms
     99%  ${latency[1]}
  53838 requests in 5.00s, 41.02MB read
${extra}Requests/sec:  10767.60
Transfer/sec:     13.23MB
status codes: {"200":53830,"429":8}
`

describe("wrk's report", () => {
  it('gives requests, their rate, p50 and p99 in milliseconds, and the non-2xx answers', () => {
    const figures = parseWrkOutput(report(['440.00us', '5.82ms']))
    assert.equal(figures.requests, 53838)
    assert.equal(figures.seconds, 5)
    assert.equal(figures.rps, 53838 / 5)
    assert.equal(figures.p50Ms, 0.44)
    assert.equal(figures.p99Ms, 5.82)
    assert.deepEqual(figures.statusCodes, { 200: 53830, 429: 8 })
    assert.equal(figures.non2xx, 8)
    assert.equal(figures.socketErrors, 0)
  })

  it('reads latencies in seconds and counts every kind of socket error', () => {
    const figures = parseWrkOutput(
      report(['1.50s', '2.00m'], '  Socket errors: connect 1, read 2, write 3, timeout 4\n'),
    )
    assert.equal(figures.p50Ms, 1500)
    assert.equal(figures.p99Ms, 120_000)
    assert.equal(figures.socketErrors, 10)
    assert.equal(figures.timeouts, 4)
  })

  it('refuses a report without the script’s status line: wrk ran its default request instead', () => {
    const broken = report(['1ms', '2ms']).replace(/status codes.*\n/, '')
    assert.throws(() => parseWrkOutput(broken), /without its script/)
  })
})

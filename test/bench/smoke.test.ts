// `npm run bench -- --smoke` works: every scenario ran against the service and the baseline,
// reported its figures and met no error, and the baseline answered with the service's bytes.
// Never a speed: the figures of a smoke run on a shared machine mean nothing.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { findNginx } from '../../bench/nginx.ts'
import type { BenchResult } from '../../bench/result.ts'
import { findWrk } from '../../bench/wrk-driver.ts'
import { runScriptWithResults } from '../support/process.ts'
import { postgresSkipReason } from '../support/stores.ts'

const wrkInstalled = findWrk() !== undefined
const sumOf = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0)

async function smoke(args: string[]): Promise<{ result: BenchResult; files: string[]; output: string }> {
  return runScriptWithResults('bench/run.ts', ['--smoke', ...args], (dir, files, output) => {
    const json = files.find((f) => f.endsWith('.json'))
    assert.ok(json, `no result file among ${files.join(', ')}`)
    return { result: JSON.parse(readFileSync(join(dir, json), 'utf8')) as BenchResult, files, output }
  })
}

function assertComplete({ result, files, output }: Awaited<ReturnType<typeof smoke>>) {
  assert.deepEqual(
    files.map((f) => f.slice(f.lastIndexOf('.'))),
    ['.json', '.md', '.svg'],
  )
  assert.equal(result.verification.identical, true, result.verification.differences.join('\n'))
  const ran = result.scenarios.map((s) => `${s.scenario}@${s.events}`).sort()
  assert.deepEqual(ran, [
    'browser-get-event@1000',
    'deep-page@1000',
    'filter-dates@1000',
    'filter-location@1000',
    'filter-q@1000',
    'get-event@1000',
    'get-page@1000',
    'growth-get-event@1000',
    'growth-get-event@200',
    'growth-get-page-1@1000',
    'growth-get-page-1@200',
    'mix-90-10@1000',
    'post-event@1000',
    // Through nginx where it is installed (.ci/run installs it); skipped, and said, otherwise.
    ...(findNginx() ? ['proxied-get-event@1000', 'proxied-get-page@1000'] : []),
    'put-event@1000',
    'revalidate-event@1000',
    'signed-put-event@1000',
  ])
  for (const s of result.scenarios) {
    for (const [side, figures] of [
      ['service', s.service],
      ['baseline', s.baseline],
    ] as const) {
      const what = `${s.scenario}@${s.events} (${side})`
      assert.equal(figures.non2xx, 0, `${what}: status codes ${JSON.stringify(figures.statusCodes)}`)
      // wrk where installed (.ci/run installs it), signed requests too (signed ahead, sent once each).
      const driver = wrkInstalled ? 'wrk' : 'autocannon'
      assert.equal(figures.driver, driver, `${what}: load generator`)
      assert.equal(
        sumOf(figures.statusCodes),
        figures.requests,
        `${what}: every answer has its status counted`,
      )
      assert.equal(figures.socketErrors, 0, `${what}: socket errors`)
      assert.ok(figures.requests >= (result.run.requests ?? 1), `${what}: ${figures.requests} requests`)
      for (const figure of [figures.rps, figures.p50Ms, figures.p99Ms])
        assert.ok(Number.isFinite(figure), what)
    }
    assert.ok(Number.isFinite(s.ratio), s.scenario)
    assert.ok(output.includes(`| ${s.scenario} |`), `${s.scenario} missing from the printed table`)
  }
  assert.deepEqual(result.growth.map((g) => g.scenario).sort(), ['growth-get-event', 'growth-get-page-1'])
}

// Generous: alone a smoke run takes under a minute, but npm run test:extra runs it beside other files on two
// shared cores, where it has taken over two.
const smokeTimeoutMs = 300_000

describe('npm run bench -- --smoke', () => {
  it('[sqlite] runs every scenario on the service and the baseline, reports each, and meets no error', {
    timeout: smokeTimeoutMs,
  }, async () => {
    assertComplete(await smoke([]))
  })

  it('[sqlite] with --rounds 3 measures each side three times in turn and reports the medians', {
    timeout: smokeTimeoutMs,
  }, async () => {
    const { result, output } = await smoke(['--rounds', '3', '--scenarios', 'get-event'])
    assert.equal(result.run.rounds, 3)
    assert.match(output, /3 rounds per scenario/)
    const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[1]
    for (const s of result.scenarios) {
      const rounds = s.rounds
      assert.ok(rounds, s.scenario)
      assert.equal(rounds.service.length, 3)
      assert.equal(rounds.baseline.length, 3)
      assert.equal(s.service.rps, medianOf(rounds.service), `${s.scenario}: the service's median round`)
      assert.equal(s.baseline.rps, medianOf(rounds.baseline), `${s.scenario}: the baseline's median round`)
      const ratios = rounds.service.map((rps, i) => rps / (rounds.baseline[i] as number))
      assert.equal(s.ratio, medianOf(ratios), `${s.scenario}: the median of the rounds' ratios`)
      const [low, high] = [Math.min(...ratios), Math.max(...ratios)].map((r) => r.toFixed(2))
      assert.ok(
        output.includes(`| ${s.ratio.toFixed(2)} (${low}–${high}) |`),
        `${s.scenario}: the table shows the median ratio and the rounds' range`,
      )
      assert.ok(s.service.requests >= (result.run.requests ?? 1))
      assert.equal(s.errors, 0)
    }
  })

  it('[postgres] runs every scenario on the service and the baseline, reports each, and meets no error', {
    timeout: smokeTimeoutMs,
    skip: postgresSkipReason,
  }, async () => {
    const run = await smoke(['--store', 'postgres', '--database-url', process.env.DATABASE_URL_TEST_PG ?? ''])
    assertComplete(run)
    // CI's PostgreSQL runs on this machine: what each request cost it is read and reported.
    if (['127.0.0.1', 'localhost'].includes(new URL(process.env.DATABASE_URL_TEST_PG ?? '').hostname)) {
      assert.match(run.output, /database CPU µs\/req service \/ baseline/)
      for (const s of run.result.scenarios)
        for (const figures of [s.service, s.baseline])
          assert.ok((figures.storeCpuMicrosPerRequest ?? -1) >= 0, `${s.scenario}: the database's CPU`)
    }
  })
})

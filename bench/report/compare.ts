// `npm run bench -- --compare A.json B.json`: what changed from A to B, run by run.
import { readFileSync } from 'node:fs'
import type { BenchResult } from '../result.ts'

const pct = (a: number, b: number) =>
  a > 0 ? `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)}%` : '—'

export function compareResults(pathA: string, pathB: string): string {
  const a = JSON.parse(readFileSync(pathA, 'utf8')) as BenchResult
  const b = JSON.parse(readFileSync(pathB, 'utf8')) as BenchResult
  const key = (s: { scenario: string; events: number }) => `${s.scenario}@${s.events}`
  const before = new Map(a.scenarios.map((s) => [key(s), s]))
  const lines = [
    `A: ${pathA} (${a.commit}, ${a.store}, ${a.events} events, ${a.date})`,
    `B: ${pathB} (${b.commit}, ${b.store}, ${b.events} events, ${b.date})`,
    ...(a.pinning !== b.pinning ? [`note: pinning differs: A ${a.pinning}; B ${b.pinning}`] : []),
    ...(a.smoke || b.smoke ? ['note: a smoke run is among them: its figures mean nothing'] : []),
    ...(JSON.stringify(a.run) !== JSON.stringify(b.run)
      ? [`note: run lengths differ: A ${JSON.stringify(a.run)}; B ${JSON.stringify(b.run)}`]
      : []),
    '',
    '| scenario | events | service req/s A → B | change | p99 ms A → B | ratio A → B | baseline req/s A → B |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const s of b.scenarios) {
    const old = before.get(key(s))
    before.delete(key(s))
    if (!old) {
      lines.push(
        `| ${s.scenario} | ${s.events} | — → ${Math.round(s.service.rps)} | new | — → ${s.service.p99Ms} | — → ${s.ratio.toFixed(2)} | — → ${Math.round(s.baseline.rps)} |`,
      )
      continue
    }
    lines.push(
      `| ${s.scenario} | ${s.events} | ${Math.round(old.service.rps)} → ${Math.round(s.service.rps)} | ${pct(old.service.rps, s.service.rps)} | ` +
        `${old.service.p99Ms} → ${s.service.p99Ms} | ${old.ratio.toFixed(2)} → ${s.ratio.toFixed(2)} | ` +
        `${Math.round(old.baseline.rps)} → ${Math.round(s.baseline.rps)} |`,
    )
  }
  for (const s of before.values()) lines.push(`| ${s.scenario} | ${s.events} | only in A | | | | |`)
  return `${lines.join('\n')}\n`
}

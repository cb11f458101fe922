// Result files, named by date, commit and store: <date>-<commit>-<store>[-smoke].{json,md,svg}.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { repoRoot } from './processes.ts'
import { markdown } from './report/markdown.ts'
import { ratioChart } from './report/svg.ts'
import type { BenchResult } from './result.ts'

export function writeResults(result: BenchResult, dir: string): string[] {
  const folder = resolve(repoRoot, dir)
  mkdirSync(folder, { recursive: true })
  const stamp = result.date.replace(/:/g, '').replace(/\.\d+Z$/, 'Z')
  const stem = join(folder, `${stamp}-${result.commit}-${result.store}${result.smoke ? '-smoke' : ''}`)
  const files = [`${stem}.json`, `${stem}.md`, `${stem}.svg`]
  writeFileSync(files[0] as string, `${JSON.stringify(result, null, 2)}\n`)
  writeFileSync(files[1] as string, markdown(result))
  writeFileSync(files[2] as string, ratioChart(result))
  return files
}

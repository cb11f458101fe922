// The harness measures the compiled service, as production runs it: `npm run build` first when
// dist/ is missing or older than any source file.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot, runCommand } from './processes.ts'

function newestSource(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs)
  }
  return newest
}

export async function ensureBuild(log: (line: string) => void): Promise<void> {
  let built = 0
  try {
    built = statSync(join(repoRoot, 'dist/main.js')).mtimeMs
  } catch {}
  if (built > 0 && built >= newestSource(join(repoRoot, 'src'))) return
  log(built === 0 ? 'dist/ is missing: npm run build' : 'dist/ is older than src/: npm run build')
  await runCommand(['npm', 'run', '--silent', 'build'], process.env)
}

// The harness measures the compiled service, as production runs it: built first when dist/ is
// missing or older than its sources, by the rule `npm ci` follows too (scripts/build-if-stale.mjs,
// which says on standard error what it did).
import { execFileSync } from 'node:child_process'
import { repoRoot } from './processes.ts'

export function ensureBuild(): void {
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  })
}

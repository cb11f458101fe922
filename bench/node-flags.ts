// The Node flags of the production command, read from package.json's "start" (the Dockerfile and
// deploy/ers.service use the same: test/unit/production-command.test.ts): the bench runs the
// service as it is deployed.
import { readFileSync } from 'node:fs'

const start: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts
  .start

/** The flags between `node` and the entry file, e.g. `--max-semi-space-size=4`. */
export const productionNodeFlags: readonly string[] = start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'))

const added = (variable: string) => (process.env[variable] ?? '').split(/\s+/).filter(Boolean)

/**
 * The service's: the production flags, then those of BENCH_SERVICE_NODE_FLAGS, to look inside a
 * run (`--cpu-prof --cpu-prof-dir=/tmp/prof`, `--trace-gc` with BENCH_SERVER_LOG).
 */
export const serviceNodeFlags: readonly string[] = [
  ...productionNodeFlags,
  ...added('BENCH_SERVICE_NODE_FLAGS'),
]

/**
 * The baseline's: the production flags, then those of BENCH_BASELINE_NODE_FLAGS, to profile it beside
 * the service and compare the two per request.
 */
export const baselineNodeFlags: readonly string[] = [
  ...productionNodeFlags,
  ...added('BENCH_BASELINE_NODE_FLAGS'),
]

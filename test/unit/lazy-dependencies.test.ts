// What the service loads only where it is used (docs/architecture.md, the heap settings): ioredis
// only with REDIS_URL set, pg only on PostgreSQL, and never Node's bundled undici (an ES module
// import of node:http loads it on Node 24, through http.WebSocket's lazy getter: ~3 MB of heap).
// Each case is a process of its own (test/support/loaded-modules-probe.ts): modules once loaded
// stay loaded.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const root = fileURLToPath(new URL('../..', import.meta.url))
const probe = 'test/support/loaded-modules-probe.ts'

async function loaded(
  env: Record<string, string>,
): Promise<{ status: number; ioredis: boolean; pg: boolean; undici: boolean }> {
  const { REDIS_URL: _, ...inherited } = process.env
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', probe], {
    cwd: root,
    env: { ...inherited, ...env },
  })
  // The service's own log lines may come before or after the probe's.
  return JSON.parse(stdout.split('\n').find((line) => line.startsWith('{"status"')) ?? '')
}

describe('dependencies loaded only where used', () => {
  it('on SQLite without REDIS_URL: neither ioredis, pg nor Node’s undici, after an answered request', async () => {
    assert.deepEqual(await loaded({}), { status: 200, ioredis: false, pg: false, undici: false })
  })

  it('with REDIS_URL: ioredis (so the probe sees a loaded module), still no undici', async () => {
    // Nothing need listen there: the counters fall back to memory and keep trying.
    assert.deepEqual(await loaded({ REDIS_URL: 'redis://127.0.0.1:1' }), {
      status: 200,
      ioredis: true,
      pg: false,
      undici: false,
    })
  })
})

// `npx ers` in a checkout, as the README has a reader type it: the first time, npx links this
// directory into its cache as a package, and npm runs the `prepare` script of what it links. That
// must not build again over an up-to-date dist/ (scripts/build-if-stale.mjs): a build rewrites
// every module under whatever runs from dist/ at that moment.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { cleanEnv, root, run } from '../support/packing.ts'

describe('npx ers in a checkout', () => {
  const cache = mkdtempSync(join(tmpdir(), 'ers-npx-cache-'))
  after(() => rmSync(cache, { recursive: true, force: true }))

  it('runs the CLI from a new npx cache and leaves an up-to-date dist/ as it was', async () => {
    const built = ['dist/main.js', 'dist/cli/main.js', 'packages/client/dist/index.js']
    const modified = () => built.map((path) => statSync(join(root, path)).mtimeMs)
    const before = modified()
    const { stdout, stderr } = await run('npx', ['--offline', 'ers', '--help'], {
      cwd: root,
      env: {
        ...cleanEnv(),
        PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}`,
        npm_config_cache: cache,
        // Shows what prepare said, which npm otherwise keeps to itself.
        npm_config_foreground_scripts: 'true',
      },
    })
    assert.match(stdout, /Exit status: 0 done/)
    assert.match(
      stderr,
      /dist\/ is up to date with the sources; not rebuilt/,
      'npm ran prepare, which did not build',
    )
    assert.deepEqual(modified(), before, 'dist/ was rewritten')
  })
})

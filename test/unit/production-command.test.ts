// The production command's Node flags (V8's heap caps, no Maglev: docs/operations.md, "Memory")
// are written in several places that must agree: npm start, the Dockerfile, the systemd unit,
// the operations guide, and the benchmark, which runs the service as it is deployed.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { productionNodeFlags } from '../../bench/node-flags.ts'

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
const flagsOf = (command: string) => command.split(/\s+/).filter((word) => word.startsWith('--'))

const start: string = JSON.parse(read('package.json')).scripts.start

describe('the production command', () => {
  it('npm start runs dist/main.js with the flags, and no others', () => {
    assert.match(start, /^exec node (--\S+ )+dist\/main\.js$/)
    assert.deepEqual(flagsOf(start), ['--max-semi-space-size=4', '--max-old-space-size=1024', '--no-maglev'])
  })

  it('the Dockerfile, the systemd unit, the operations guide and the bench use the same flags', () => {
    const docker = /^CMD \[(.*)\]$/m.exec(read('Dockerfile'))?.[1] ?? ''
    assert.deepEqual(flagsOf(docker.replaceAll(/[",]/g, ' ')), flagsOf(start))
    const unit = /^ExecStart=(.*)$/m.exec(read('deploy/ers.service'))?.[1] ?? ''
    assert.deepEqual(flagsOf(unit), flagsOf(start))
    const guide = /The production command is `([^`]*)`/.exec(read('docs/operations.md'))?.[1] ?? ''
    assert.deepEqual(flagsOf(guide), flagsOf(start))
    assert.deepEqual(productionNodeFlags, flagsOf(start))
  })
})

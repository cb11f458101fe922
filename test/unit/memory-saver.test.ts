import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, it } from 'node:test'
import { memorySaverThresholds, startMemorySaver } from '../../src/memory-saver.ts'

const v8 = '13.6.233.10'
const { onAboveBytes, offBelowBytes } = memorySaverThresholds

describe('V8 memory-saver mode', () => {
  it('on and off are what they say, and nothing on a V8 that does not know the flag', () => {
    const set: string[] = []
    const record = (flags: string) => set.push(flags)
    assert.equal(
      startMemorySaver('off', { v8Version: v8, set: record }).description,
      'V8 memory-saver off (MEMORY_SAVER=off)',
    )
    assert.match(
      startMemorySaver('on', { v8Version: '12.4.254.21', set: record }).description,
      /not available on V8 12/,
    )
    assert.match(
      startMemorySaver('auto', { v8Version: '12.4.254.21', set: record }).description,
      /not available on V8 12/,
    )
    assert.deepEqual(set, [])
    assert.equal(
      startMemorySaver('on', { v8Version: v8, set: record }).description,
      'V8 memory-saver on (MEMORY_SAVER=on)',
    )
    assert.deepEqual(set, ['--memory-saver-mode'])
  })

  it('auto turns it on above its ceiling and off again only well below it, and says so', () => {
    const set: string[] = []
    const told: string[] = []
    let resident = 100 * 2 ** 20
    const saver = startMemorySaver('auto', {
      v8Version: v8,
      set: (flags) => set.push(flags),
      residentBytes: () => resident,
      onChange: (message) => told.push(message),
    })
    try {
      assert.match(saver.description, /on above 136 MiB resident, off again below 124 MiB/)
      const at = (bytes: number) => {
        resident = bytes
        saver.check()
      }
      at(onAboveBytes - 1)
      assert.deepEqual(set, [], 'under the ceiling it costs nothing')
      at(onAboveBytes)
      at(onAboveBytes + 20 * 2 ** 20)
      assert.deepEqual(set, ['--memory-saver-mode'], 'once, however high it goes')
      at(offBelowBytes + 1)
      assert.deepEqual(set, ['--memory-saver-mode'], 'between the two it stays on: no flapping')
      at(offBelowBytes - 1)
      at(offBelowBytes + 1)
      assert.deepEqual(set, ['--memory-saver-mode', '--no-memory-saver-mode'], 'and off stays off')
      assert.deepEqual(told, [
        'V8 memory-saver on: resident 136 MiB',
        'V8 memory-saver off: resident 124 MiB',
      ])
    } finally {
      saver.stop()
    }
  })

  // The flags are V8's, not Node's: a V8 that dropped or renamed them would print an error on
  // standard error and go on without them. Node 24's takes both silently.
  it('this runtime knows the flag both ways', {
    skip: Number(process.versions.v8.split('.')[0]) < 13,
  }, () => {
    const script =
      "const v8 = require('node:v8'); v8.setFlagsFromString('--memory-saver-mode'); v8.setFlagsFromString('--no-memory-saver-mode')"
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
    assert.equal(child.status, 0)
    assert.equal(child.stderr, '')
    const unknown = spawnSync(process.execPath, ['-e', script.replaceAll('memory-saver', 'no-such')], {
      encoding: 'utf8',
    })
    assert.match(unknown.stderr, /unrecognized flag/)
  })
})

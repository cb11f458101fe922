import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, it } from 'node:test'
import { applyMemorySaver, memorySaverWanted } from '../../src/memory-saver.ts'

describe('V8 memory-saver mode', () => {
  it('auto turns it on for an SQLite file and off for PostgreSQL; on and off are what they say', () => {
    assert.equal(memorySaverWanted('auto', 'sqlite:./data/events.db'), true)
    assert.equal(memorySaverWanted('auto', 'sqlite::memory:'), true)
    assert.equal(memorySaverWanted('auto', 'postgres://u@h/db'), false)
    assert.equal(memorySaverWanted('on', 'postgres://u@h/db'), true)
    assert.equal(memorySaverWanted('off', 'sqlite:./data/events.db'), false)
  })

  it('sets the flag only when wanted and known to this V8, and says what it did', () => {
    const set: string[] = []
    const record = (flags: string) => set.push(flags)
    assert.equal(
      applyMemorySaver('auto', 'postgres://u@h/db', '13.6.233.10', record),
      'V8 memory-saver off (MEMORY_SAVER=auto)',
    )
    assert.match(applyMemorySaver('on', 'postgres://u@h/db', '12.4.254.21', record), /not available on V8 12/)
    assert.deepEqual(set, [])
    assert.equal(
      applyMemorySaver('auto', 'sqlite:x.db', '13.6.233.10', record),
      'V8 memory-saver on (MEMORY_SAVER=auto)',
    )
    assert.deepEqual(set, ['--memory-saver-mode'])
  })

  // The flag is V8's, not Node's: a V8 that dropped or renamed it would print an error on standard
  // error and go on without it. Node 24's takes it silently.
  it('this runtime knows the flag', { skip: Number(process.versions.v8.split('.')[0]) < 13 }, () => {
    const script = "require('node:v8').setFlagsFromString('--memory-saver-mode')"
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
    assert.equal(child.status, 0)
    assert.equal(child.stderr, '')
    const unknown = spawnSync(process.execPath, ['-e', script.replace('memory-saver', 'no-such')], {
      encoding: 'utf8',
    })
    assert.match(unknown.stderr, /unrecognized flag/)
  })
})

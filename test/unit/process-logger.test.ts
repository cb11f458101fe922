// The process's log destination (src/process-logger.ts): lines wait until 4 KiB have gathered, or
// at most 100 ms, and come out whole and in order.
import assert from 'node:assert/strict'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { pino } from 'pino'
import { logBufferBytes, processLogStream } from '../../src/process-logger.ts'
import { poll } from '../support/process.ts'

const dir = mkdtempSync(join(tmpdir(), 'ers-log-'))
after(() => rmSync(dir, { recursive: true, force: true }))

function logFile(name: string) {
  const path = join(dir, name)
  const fd = openSync(path, 'w')
  return { stream: processLogStream(fd), read: () => readFileSync(path, 'utf8'), close: () => closeSync(fd) }
}

describe('the process log stream', () => {
  it('holds a few lines back, then writes them in order when asked', () => {
    const { stream, read, close } = logFile('few.log')
    stream.write('{"n":1}\n')
    stream.write('{"n":2}\n')
    assert.equal(read(), '')
    stream.flushSync()
    assert.equal(read(), '{"n":1}\n{"n":2}\n')
    close()
  })

  it("writes what waits when pino's logger.flush asks", () => {
    const { stream, read, close } = logFile('flush.log')
    const logger = pino({ base: null, timestamp: false }, stream)
    logger.info('first')
    assert.equal(read(), '')
    let called = false
    logger.flush(() => {
      called = true
    })
    assert.equal(read(), '{"level":30,"msg":"first"}\n')
    assert.equal(called, true)
    close()
  })

  it('writes by itself once 4 KiB are waiting, every line whole', () => {
    const { stream, read, close } = logFile('full.log')
    const line = `{"pad":"${'x'.repeat(90)}"}\n`
    const count = Math.ceil(logBufferBytes / line.length)
    for (let i = 0; i < count - 1; i++) stream.write(line)
    assert.equal(read(), '')
    stream.write(line)
    assert.equal(read(), line.repeat(count))
    close()
  })

  it('writes what waits within a moment, without being asked', async () => {
    const { stream, read, close } = logFile('quiet.log')
    stream.write('{"quiet":true}\n')
    await poll(() => read() !== '')
    assert.equal(read(), '{"quiet":true}\n')
    close()
  })

  it('makes a deferred line only when it writes, in order with the others', () => {
    const { stream, read, close } = logFile('deferred.log')
    let made = 0
    const deferred = (n: number) => ({
      toString() {
        made++
        return `{"deferred":${n}}\n`
      },
    })
    stream.write('{"n":1}\n')
    stream.writeDeferred(deferred(2), 16)
    stream.write('{"n":3}\n')
    assert.equal(made, 0)
    stream.flushSync()
    assert.equal(made, 1)
    assert.equal(read(), '{"n":1}\n{"deferred":2}\n{"n":3}\n')
    close()
  })

  it('counts a deferred line as the length it is given towards 4 KiB', () => {
    const { stream, read, close } = logFile('deferred-full.log')
    const line = { toString: () => 'x\n' }
    for (let i = 0; i < logBufferBytes / 256 - 1; i++) stream.writeDeferred(line, 256)
    assert.equal(read(), '')
    stream.writeDeferred(line, 256)
    assert.equal(read(), 'x\n'.repeat(logBufferBytes / 256))
    close()
  })
})

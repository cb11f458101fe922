import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FeedStream } from '../../src/feed/feed-stream.ts'

const options = (maxBufferedBytes = 1 << 20) => {
  let ended = 0
  return {
    options: { maxBufferedBytes, socketBuffered: () => 0, onEnd: () => void ended++ },
    ended: () => ended,
  }
}
const read = (stream: FeedStream) => (stream.body.read() as Buffer | null)?.toString() ?? ''

describe('FeedStream', () => {
  it('holds live changes during the replay, then sends them without the numbers the replay sent', () => {
    const stream = new FeedStream(options().options, 4)
    stream.deliver(6, 'six;')
    stream.deliver(7, 'seven;')
    stream.send(4, 'four;')
    stream.send(5, 'five;')
    stream.send(6, 'six;')
    stream.goLive()
    stream.deliver(7, 'seven again;')
    stream.deliver(8, 'eight;')
    assert.equal(read(stream), 'five;six;seven;eight;')
  })

  it('drops a reader that leaves more than the limit untaken, once, so that it resumes elsewhere', async () => {
    const { options: settings, ended } = options(16 * 1024)
    const stream = new FeedStream(settings)
    stream.goLive()
    const message = `${'x'.repeat(1000)}\n\n`
    for (let seq = 1; seq <= 100 && !stream.ended; seq++) stream.deliver(seq, message)
    assert.ok(stream.ended, 'the stream was dropped')
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(ended(), 1)
    assert.ok(stream.body.destroyed)
  })

  it('ends cleanly on end() and tells its owner once', () => {
    const { options: settings, ended } = options()
    const stream = new FeedStream(settings)
    stream.end()
    stream.end()
    stream.deliver(1, 'late;')
    assert.equal(ended(), 1)
    assert.equal(stream.body.writableEnded, true)
  })
})

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Change } from '../../src/domain/change.ts'
import { ChangeHub, type Subscriber } from '../../src/feed/change-hub.ts'

/** A change log in memory that counts its readers' queries. */
function fakeLog() {
  const changes: Change[] = []
  let wake = () => {}
  const log = {
    reads: 0,
    watching: 0,
    add(n: number) {
      for (let i = 0; i < n; i++) changes.push({ seq: changes.length + 1, kind: 'reset' })
      wake()
    },
    source: {
      async changesAfter(after: number, limit: number) {
        log.reads++
        return changes.filter((c) => c.seq > after).slice(0, limit)
      },
      async changeLogBounds() {
        return { oldest: 1, newest: changes.length }
      },
      watchChanges(onWake: () => void) {
        log.watching++
        wake = onWake
        return async () => {
          log.watching--
        }
      },
    },
  }
  return log
}

const collector = () => {
  const got: number[] = []
  const subscriber: Subscriber = { deliver: (seq) => got.push(seq) }
  return { got, subscriber }
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0))
const silent = { warn() {} }

describe('ChangeHub', () => {
  it('reads each change once for all its subscribers, in order, from what was newest when they came', async () => {
    const log = fakeLog()
    log.add(3)
    const hub = new ChangeHub(log.source, (c) => String(c.seq), silent)
    const subscribers = [collector(), collector(), collector()]
    for (const { subscriber } of subscribers) await hub.subscribe(subscriber)
    assert.equal(log.watching, 1, 'one watch per process')
    const before = log.reads
    log.add(2)
    await settled()
    assert.equal(log.reads - before, 1, 'one query for three subscribers')
    for (const { got } of subscribers) assert.deepEqual(got, [4, 5])
    await hub.close()
    assert.equal(log.watching, 0)
  })

  it('reads nothing while nobody listens, and a later subscriber starts from the newest change', async () => {
    const log = fakeLog()
    const hub = new ChangeHub(log.source, (c) => String(c.seq), silent)
    const first = collector()
    await hub.subscribe(first.subscriber)
    hub.unsubscribe(first.subscriber)
    log.add(5)
    await settled()
    const reads = log.reads
    log.add(5)
    await settled()
    assert.equal(log.reads, reads, 'no query without subscribers')
    const later = collector()
    await hub.subscribe(later.subscriber)
    log.add(1)
    await settled()
    assert.deepEqual(later.got, [11])
    await hub.close()
  })
})

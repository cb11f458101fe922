import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  addressBlock,
  attemptKeys,
  MemoryAttemptCounter,
  type Ticket,
} from '../../src/auth/failed-attempts.ts'

/** A counter on a clock the test moves. */
function counter(limit: number, options: { windowMs?: number; maxKeys?: number } = {}) {
  let now = 1_000_000
  const attempts = new MemoryAttemptCounter(limit, { ...options, now: () => now })
  return {
    attempts,
    advance(ms: number) {
      now += ms
    },
  }
}

async function take(attempts: MemoryAttemptCounter, keys: string[]): Promise<Ticket> {
  const taken = await attempts.take(keys)
  assert.ok('ticket' in taken, `refused: ${JSON.stringify(taken)}`)
  return taken.ticket
}

describe('MemoryAttemptCounter', () => {
  it('takes up to the limit, then refuses with the seconds left in the window', async () => {
    const { attempts, advance } = counter(3)
    assert.deepEqual(attempts.policy, { limit: 3, windowSeconds: 60 })
    for (let i = 0; i < 3; i++) await take(attempts, ['a'])
    assert.deepEqual(await attempts.take(['a']), { retryAfterSeconds: 60 })
    advance(59_001)
    assert.equal(await attempts.retryAfter(['a']), 1)
    advance(999)
    assert.equal(await attempts.retryAfter(['a']), 0, 'the window is over')
    await take(attempts, ['a'])
  })

  it('counts nothing when one key is at the limit, and answers the longest wait', async () => {
    const { attempts, advance } = counter(1)
    await take(attempts, ['a'])
    advance(30_000)
    await take(attempts, ['b'])
    assert.deepEqual(await attempts.take(['c', 'a', 'b']), { retryAfterSeconds: 60 })
    assert.equal(await attempts.retryAfter(['c']), 0)
    await take(attempts, ['c'])
  })

  it('gives back a success within its window only, and never below zero', async () => {
    const { attempts, advance } = counter(2)
    const first = await take(attempts, ['a'])
    await attempts.giveBack(first)
    await attempts.giveBack(first)
    assert.equal(attempts.size, 0, 'a key back at zero is forgotten')
    const old = await take(attempts, ['a'])
    advance(60_000)
    await take(attempts, ['a'])
    await take(attempts, ['a'])
    await attempts.giveBack(old) // taken in the previous window: gives nothing back now
    assert.equal(await attempts.retryAfter(['a']), 60)
  })

  it('keeps at most maxKeys windows, dropping ended ones first, then the oldest', async () => {
    const { attempts, advance } = counter(1, { maxKeys: 3 })
    await take(attempts, ['a'])
    advance(60_000)
    await take(attempts, ['b'])
    await take(attempts, ['c'])
    await take(attempts, ['d']) // a has ended: it goes
    assert.equal(attempts.size, 3)
    await take(attempts, ['e']) // full of live windows: the oldest, b, goes
    assert.equal(attempts.size, 3)
    assert.equal(await attempts.retryAfter(['b']), 0)
    assert.equal(await attempts.retryAfter(['c']), 60)
  })
})

describe('attemptKeys', () => {
  it('is one key for the address block and one for the name, of bounded length', () => {
    const [address, name] = attemptKeys('192.0.2.7', 'x'.repeat(10_000))
    assert.equal(address, 'address:192.0.2.7')
    assert.ok(name?.startsWith('name:') && name.length < 60)
    assert.notEqual(attemptKeys('192.0.2.7', 'alice')[1], attemptKeys('192.0.2.7', 'Alice')[1])
  })
})

describe('addressBlock', () => {
  it('keeps IPv4 addresses whole and unmaps IPv4-mapped IPv6', () => {
    assert.equal(addressBlock('192.0.2.7'), '192.0.2.7')
    assert.equal(addressBlock('::ffff:192.0.2.7'), '192.0.2.7')
  })

  it('groups IPv6 addresses by /64, however they are written', () => {
    const block = '2001:db8:0:1::/64'
    for (const ip of [
      '2001:db8:0:1::1',
      '2001:0db8:0000:0001:ffff:ffff:ffff:ffff',
      '2001:DB8:0:1:0:0:0:2',
      '2001:db8:0:1::192.0.2.1',
      'fe80::1%eth0'.replace('fe80::1', '2001:db8:0:1::1'),
    ]) {
      assert.equal(addressBlock(ip), block, ip)
    }
    assert.equal(addressBlock('::1'), '0:0:0:0::/64')
    assert.equal(addressBlock('2001:db8::'), '2001:db8:0:0::/64')
    assert.notEqual(addressBlock('2001:db8:0:2::1'), block)
  })
})

import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import {
  CredentialVerifier,
  type PasswordFunctions,
  type UserSource,
  type VerifierOptions,
} from '../../src/auth/credential-verifier.ts'
import { MemoryAttemptCounter, TooManyAttempts } from '../../src/auth/failed-attempts.ts'
import { costOf, hashPassword, verifyPassword } from '../../src/auth/passwords.ts'
import type { User } from '../../src/domain/types.ts'

// An in-memory stand-in for the store: this file tests the verifier's cache, not the store.
class FakeUsers implements UserSource {
  readonly #users = new Map<string, User>()
  lookups = 0
  async findUser(name: string): Promise<User | undefined> {
    this.lookups++
    return this.#users.get(name)
  }
  put(user: User): User {
    this.#users.set(user.name, user)
    return user
  }
  remove(name: string): void {
    this.#users.delete(name)
  }
  async replacePasswordHash(name: string, expected: string, replacement: string): Promise<boolean> {
    const user = this.#users.get(name)
    if (user?.passwordHash !== expected) return false
    this.#users.set(name, { ...user, passwordHash: replacement })
    return true
  }
  get(name: string): User | undefined {
    return this.#users.get(name)
  }
}

/** The real password functions, counting how many hashes are verified and computed. */
function countingPasswords() {
  const counts = { verified: 0, hashed: 0 }
  const passwords: PasswordFunctions = {
    verify: (hash, password) => {
      counts.verified++
      return verifyPassword(hash, password)
    },
    hash: (password, cost) => {
      counts.hashed++
      return hashPassword(password, cost)
    },
  }
  return { counts, passwords }
}

// Argon2id costs tens of milliseconds: hash each password once for the whole file.
const alicePassword = 'alice-first-password'
const aliceNewPassword = 'alice-second-password'
const bobPassword = 'bob-password-123'
let aliceHash: string
let aliceNewHash: string
let bobHash: string

before(async () => {
  ;[aliceHash, aliceNewHash, bobHash] = await Promise.all([
    hashPassword(alicePassword),
    hashPassword(aliceNewPassword),
    hashPassword(bobPassword),
  ])
})

const alice = (passwordHash = aliceHash): User => ({ id: 1, name: 'alice', role: 'editor', passwordHash })
const bob = (): User => ({ id: 2, name: 'bob', role: 'reader', passwordHash: bobHash })

function setUp(options: VerifierOptions = { ttlMs: 60_000 }) {
  const users = new FakeUsers()
  users.put(alice())
  users.put(bob())
  // A clock of the test's own: the TTL passes when the test says so, not after a real sleep.
  const clock = { ms: 1_000_000, advance: (ms: number) => (clock.ms += ms) }
  return { users, clock, verifier: new CredentialVerifier(users, { now: () => clock.ms, ...options }) }
}

/** Names of the promises in the order they settle. */
async function settleOrder(promises: Record<string, Promise<unknown>>): Promise<string[]> {
  const order: string[] = []
  await Promise.all(
    Object.entries(promises).map(([name, promise]) =>
      promise.then(
        () => order.push(name),
        () => order.push(name),
      ),
    ),
  )
  return order
}

/**
 * Whether alice's credentials are answered from the cache. With one hashing slot, bob's uncached
 * check holds the slot for one Argon2 computation; a cache hit for alice settles before it, while a
 * miss queues behind it (the limiter is first-come, first-served).
 */
async function answeredFromCache(verifier: CredentialVerifier, password = alicePassword): Promise<boolean> {
  const slow = verifier.verify('bob', bobPassword)
  const probe = verifier.verify('alice', password)
  const order = await settleOrder({ slow, probe })
  assert.equal((await slow)?.name, 'bob')
  return order[0] === 'probe'
}

/** Counts turns of the event loop, so that "settled in the same turn" can be asserted. */
function turnCounter() {
  let turn = 0
  let running = true
  const spin = () => {
    if (!running) return
    turn++
    setImmediate(spin)
  }
  setImmediate(spin)
  return {
    get turn() {
      return turn
    },
    stop() {
      running = false
    },
  }
}

describe('CredentialVerifier', () => {
  describe('answers', () => {
    it('returns the stored user for the right password', async () => {
      const { verifier } = setUp()
      assert.deepEqual(await verifier.verify('alice', alicePassword), alice())
    })

    it('returns undefined for a wrong password', async () => {
      const { verifier } = setUp()
      const results = await Promise.all([
        verifier.verify('alice', 'not-alices-password'),
        verifier.verify('alice', ''),
        verifier.verify('alice', bobPassword),
        verifier.verify('alice', `${alicePassword} `),
      ])
      assert.deepEqual(results, [undefined, undefined, undefined, undefined])
    })

    it('returns undefined for an unknown user, whatever the password', async () => {
      const { verifier } = setUp()
      assert.equal(await verifier.verify('carol', alicePassword), undefined)
      assert.equal(await verifier.verify('Alice', alicePassword), undefined)
      assert.equal(await verifier.verify('', alicePassword), undefined)
    })

    it('does not let a failure for one password spoil the next try with the right one', async () => {
      const { verifier } = setUp()
      assert.equal(await verifier.verify('alice', 'wrong-password'), undefined)
      assert.deepEqual(await verifier.verify('alice', alicePassword), alice())
    })

    it('keeps users apart: right password for one user, wrong for the other', async () => {
      const { verifier } = setUp()
      const [a, b] = await Promise.all([
        verifier.verify('alice', alicePassword),
        verifier.verify('bob', alicePassword),
      ])
      assert.deepEqual(a, alice())
      assert.equal(b, undefined)
    })

    it('does the same hashing work for an unknown user as for a real one (it waits for a hashing slot)', async () => {
      const { verifier } = setUp({ ttlMs: 60_000, concurrency: 1 })
      const order = await settleOrder({
        slow: verifier.verify('bob', bobPassword),
        unknown: verifier.verify('nobody', 'whatever-password'),
      })
      assert.deepEqual(order, ['slow', 'unknown'])
    })
  })

  describe('cache', () => {
    it('answers a repeated success from the cache, without hashing', async () => {
      const { verifier } = setUp({ ttlMs: 60_000, concurrency: 1 })
      assert.deepEqual(await verifier.verify('alice', alicePassword), alice())
      assert.equal(await answeredFromCache(verifier), true)
    })

    it('looks the user up on every verification, cached or not', async () => {
      const { users, verifier } = setUp()
      await verifier.verify('alice', alicePassword)
      await verifier.verify('alice', alicePassword)
      await verifier.verify('alice', alicePassword)
      assert.equal(users.lookups, 3)
    })

    it('never answers a different password from the cache', async () => {
      const { verifier } = setUp({ ttlMs: 60_000, concurrency: 1 })
      await verifier.verify('alice', alicePassword)
      assert.equal(await verifier.verify('alice', `${alicePassword}x`), undefined)
      assert.equal(await answeredFromCache(verifier, `${alicePassword}x`), false)
    })

    it('does not cache a failure as a success', async () => {
      const { verifier } = setUp({ ttlMs: 60_000, concurrency: 1 })
      assert.equal(await verifier.verify('alice', 'wrong-password'), undefined)
      assert.equal(await verifier.verify('alice', 'wrong-password'), undefined)
    })

    it('forgets a success as soon as the stored password hash changes', async () => {
      const { users, verifier } = setUp()
      assert.deepEqual(await verifier.verify('alice', alicePassword), alice())
      users.put(alice(aliceNewHash)) // password changed, e.g. through another instance
      assert.equal(await verifier.verify('alice', alicePassword), undefined)
      assert.deepEqual(await verifier.verify('alice', aliceNewPassword), alice(aliceNewHash))
      assert.equal(await verifier.verify('alice', alicePassword), undefined)
    })

    it('forgets a success when the user is re-hashed with the same password (new salt)', async () => {
      const { users, verifier } = setUp({ ttlMs: 60_000, concurrency: 1 })
      await verifier.verify('alice', alicePassword)
      const rehashed = await hashPassword(alicePassword)
      users.put(alice(rehashed))
      assert.equal(await answeredFromCache(verifier), false)
      assert.deepEqual(await verifier.verify('alice', alicePassword), alice(rehashed))
    })

    it('forgets a success as soon as the user disappears', async () => {
      const { users, verifier } = setUp()
      assert.deepEqual(await verifier.verify('alice', alicePassword), alice())
      users.remove('alice')
      assert.equal(await verifier.verify('alice', alicePassword), undefined)
    })

    it('returns the current user record on a cache hit (a role change takes effect at once)', async () => {
      const { users, verifier } = setUp({ ttlMs: 60_000, concurrency: 1 })
      await verifier.verify('alice', alicePassword)
      const demoted = users.put({ ...alice(), role: 'reader' })
      assert.equal(await answeredFromCache(verifier), true)
      assert.deepEqual(await verifier.verify('alice', alicePassword), demoted)
    })

    it('answers a write that confirms the credentials itself from the cache, without a lookup, as unconfirmed', async () => {
      const { users, verifier } = setUp()
      assert.deepEqual(
        await verifier.verify('alice', alicePassword, '', true),
        alice(),
        'first: checked in full',
      )
      const lookups = users.lookups
      assert.deepEqual(await verifier.verify('alice', alicePassword, '', true), {
        ...alice(),
        unconfirmed: true,
      })
      assert.equal(users.lookups, lookups, 'no lookup')
      // Without deferral, and for another password, the lookup (and the check) happen as before.
      assert.deepEqual(await verifier.verify('alice', alicePassword), alice())
      assert.equal(await verifier.verify('alice', `${alicePassword}x`, '', true), undefined)
      assert.equal(users.lookups, lookups + 2)
    })

    it('defers only for an editor remembered within ttlMs', async () => {
      const { users, clock, verifier } = setUp({ ttlMs: 40 })
      await verifier.verify('bob', bobPassword)
      // A reader may have become an editor since: looked up, and answered as the store has them now.
      const promoted = users.put({ ...bob(), role: 'editor' })
      assert.deepEqual(await verifier.verify('bob', bobPassword, '', true), promoted)
      await verifier.verify('alice', alicePassword)
      clock.advance(80)
      const lookups = users.lookups
      assert.deepEqual(await verifier.verify('alice', alicePassword, '', true), alice())
      assert.equal(users.lookups, lookups + 1)
    })

    it('does not cache at all when ttlMs is 0', async () => {
      const { verifier } = setUp({ ttlMs: 0, concurrency: 1 })
      assert.deepEqual(await verifier.verify('alice', alicePassword), alice())
      assert.equal(await answeredFromCache(verifier), false)
      assert.deepEqual(await verifier.verify('alice', alicePassword), alice())
    })

    it('forgets a success once ttlMs has passed', async () => {
      const { clock, verifier } = setUp({ ttlMs: 40, concurrency: 1 })
      await verifier.verify('alice', alicePassword)
      clock.advance(40)
      assert.equal(await answeredFromCache(verifier), false)
    })

    it('remembers at most maxEntries credentials, dropping the oldest', async () => {
      const { users, verifier } = setUp({ ttlMs: 60_000, maxEntries: 1, concurrency: 1 })
      users.put({ id: 3, name: 'carol', role: 'reader', passwordHash: bobHash })
      await verifier.verify('alice', alicePassword)
      await verifier.verify('carol', bobPassword) // evicts alice
      assert.equal(await answeredFromCache(verifier), false)
    })
  })

  describe('single-flight', () => {
    it('lets concurrent checks of the same credentials share one hash computation', async () => {
      // With one hashing slot, three separate computations would settle in three different turns of
      // the event loop; one shared computation settles all three callers in the same turn.
      const { verifier } = setUp({ ttlMs: 60_000, concurrency: 1 })
      const turns = turnCounter()
      const settled: number[] = []
      try {
        const results = await Promise.all(
          [1, 2, 3].map(() =>
            verifier.verify('alice', alicePassword).then((user) => {
              settled.push(turns.turn)
              return user
            }),
          ),
        )
        assert.deepEqual(results, [alice(), alice(), alice()])
      } finally {
        turns.stop()
      }
      assert.equal(new Set(settled).size, 1, `settled in turns ${settled.join(', ')}`)
    })

    it('shares a failing check too, and every caller gets undefined', async () => {
      const { verifier } = setUp({ ttlMs: 60_000, concurrency: 1 })
      const results = await Promise.all([1, 2, 3].map(() => verifier.verify('alice', 'wrong-password')))
      assert.deepEqual(results, [undefined, undefined, undefined])
    })

    it('never shares a check between different passwords of the same user', async () => {
      const { verifier } = setUp({ ttlMs: 60_000, concurrency: 1 })
      const [right, wrong, rightAgain] = await Promise.all([
        verifier.verify('alice', alicePassword),
        verifier.verify('alice', 'wrong-password'),
        verifier.verify('alice', alicePassword),
      ])
      assert.deepEqual(right, alice())
      assert.equal(wrong, undefined)
      assert.deepEqual(rightAgain, alice())
    })

    it('does not accept the old password for a check that starts after a password change', async () => {
      // A check of alice's old password is in flight against her old hash when her password changes
      // (e.g. through another instance). A request that reads the new hash must be checked against
      // the new hash, not join the old check, and nothing may be remembered for the new hash.
      const { users, verifier } = setUp()
      const before = verifier.verify('alice', alicePassword)
      await nextTurn() // the first check is now hashing
      users.put(alice(aliceNewHash))
      const after = verifier.verify('alice', alicePassword)
      assert.deepEqual(await before, alice()) // it read the user before the change
      assert.equal(await after, undefined, 'the old password was accepted after the change')
      assert.equal(
        await verifier.verify('alice', alicePassword),
        undefined,
        'the old password was remembered',
      )
      assert.deepEqual(await verifier.verify('alice', aliceNewPassword), alice(aliceNewHash))
    })
  })

  describe('timing does not tell who exists', () => {
    it('computes as many hashes for an unknown user as for a wrong password, concurrently and one at a time', async () => {
      // Single-flight shares one hash among identical concurrent checks of a real user; an unknown
      // user must be shared the same way, or a burst of guesses shows who exists by its duration.
      const known = countingPasswords()
      const unknown = countingPasswords()
      const forKnown = setUp({ ttlMs: 60_000, passwords: known.passwords })
      const forUnknown = setUp({ ttlMs: 60_000, passwords: unknown.passwords })
      await Promise.all(Array.from({ length: 12 }, () => forKnown.verifier.verify('alice', 'wrong-password')))
      await Promise.all(
        Array.from({ length: 12 }, () => forUnknown.verifier.verify('nobody', 'wrong-password')),
      )
      assert.equal(known.counts.verified, 1)
      assert.equal(unknown.counts.verified, known.counts.verified)
      for (let i = 0; i < 3; i++) {
        await forKnown.verifier.verify('alice', 'wrong-password')
        await forUnknown.verifier.verify('nobody', 'wrong-password')
      }
      assert.equal(known.counts.verified, 4)
      assert.equal(unknown.counts.verified, known.counts.verified)
    })
  })

  describe('failed attempts', () => {
    const limited = (limit: number, extra: Partial<VerifierOptions> = {}) => {
      const counted = countingPasswords()
      const attempts = new MemoryAttemptCounter(limit)
      const { users, verifier } = setUp({ ttlMs: 60_000, attempts, passwords: counted.passwords, ...extra })
      return { users, verifier, counts: counted.counts, attempts }
    }
    const refused = (promise: Promise<unknown>) => assert.rejects(promise, TooManyAttempts)

    it('refuses a name past the limit without hashing, from any address, even with the right password', async () => {
      const { verifier, counts } = limited(3)
      for (const client of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
        assert.equal(await verifier.verify('alice', `guess from ${client}`, client), undefined)
      }
      await refused(verifier.verify('alice', alicePassword, '10.0.0.4'))
      assert.equal(counts.verified, 3)
    })

    it('refuses an address past the limit whatever name it tries', async () => {
      const { verifier, counts } = limited(3)
      for (const name of ['alice', 'bob', 'carol'])
        assert.equal(await verifier.verify(name, 'guess', '10.0.0.1'), undefined)
      await refused(verifier.verify('bob', bobPassword, '10.0.0.1'))
      assert.deepEqual(await verifier.verify('bob', bobPassword, '10.0.0.2'), bob())
      assert.equal(counts.verified, 4)
    })

    it('limits an unknown name exactly as a known one', async () => {
      const { verifier } = limited(2)
      for (const name of ['alice', 'nobody']) {
        for (const client of ['10.0.0.1', '10.0.0.2'])
          await verifier.verify(name, 'guess', `${client}-${name}`)
        await refused(verifier.verify(name, 'guess', `10.0.0.3-${name}`))
      }
    })

    it('refuses a remembered success too while the name is over the limit (no oracle for guesses)', async () => {
      const { verifier } = limited(2)
      assert.deepEqual(await verifier.verify('alice', alicePassword, '10.0.0.1'), alice())
      await verifier.verify('alice', 'guess-1', '10.0.0.2')
      await verifier.verify('alice', 'guess-2', '10.0.0.3')
      await refused(verifier.verify('alice', alicePassword, '10.0.0.1'))
    })

    it('counts a burst of concurrent guesses before hashing, so only the limit is ever hashed', async () => {
      const { verifier, counts } = limited(3)
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => verifier.verify('alice', `guess-${i}`, '10.0.0.1')),
      )
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3)
      assert.ok(results.every((r) => r.status === 'fulfilled' || r.reason instanceof TooManyAttempts))
      assert.equal(counts.verified, 3)
    })

    it('never resets a counter on success: logging in as yourself unlocks neither your address nor another name', async () => {
      const { verifier } = limited(3)
      await verifier.verify('alice', 'guess-1', '10.0.0.1')
      await verifier.verify('alice', 'guess-2', '10.0.0.1')
      for (let i = 0; i < 5; i++)
        assert.deepEqual(await verifier.verify('bob', bobPassword, '10.0.0.1'), bob())
      // Still two failures for the address and for alice: one more fills both.
      await verifier.verify('alice', 'guess-3', '10.0.0.1')
      await refused(verifier.verify('bob', bobPassword, '10.0.0.1'))
      await refused(verifier.verify('alice', alicePassword, '10.0.0.2'))
    })

    it('does not count successes, even many at once from one address', async () => {
      const { verifier } = limited(2, { ttlMs: 0 })
      const users = await Promise.all(
        Array.from({ length: 6 }, () => verifier.verify('alice', alicePassword, '10.0.0.1')),
      )
      assert.deepEqual(users, Array(6).fill(alice()))
      await verifier.verify('alice', 'guess-1', '10.0.0.1')
      assert.equal(await verifier.verify('alice', 'guess-2', '10.0.0.1'), undefined)
    })
  })

  describe('upgrading weaker hashes', () => {
    const stronger = { passwordHashMemoryKib: 19_456, passwordHashTimeCost: 3 }

    it('stores a hash at the configured cost after a successful check; the password still works', async () => {
      const counted = countingPasswords()
      const { users, verifier } = setUp({ ttlMs: 60_000, cost: stronger, passwords: counted.passwords })
      const user = await verifier.verify('alice', alicePassword)
      const stored = users.get('alice')?.passwordHash ?? ''
      assert.deepEqual(costOf(stored), stronger)
      assert.deepEqual(user, alice(stored), 'the user as now stored')
      assert.equal(counted.counts.hashed, 1)
      assert.deepEqual(await verifier.verify('alice', alicePassword), alice(stored))
      assert.equal(await verifyPassword(stored, alicePassword), true)
      assert.equal(counted.counts.hashed, 1, 'upgraded once')
    })

    it('never upgrades on a wrong password or for a hash already as strong', async () => {
      const counted = countingPasswords()
      const { users, verifier } = setUp({ ttlMs: 60_000, cost: stronger, passwords: counted.passwords })
      assert.equal(await verifier.verify('alice', 'wrong-password'), undefined)
      assert.equal(users.get('alice')?.passwordHash, aliceHash)
      const weaker = setUp({ ttlMs: 60_000, passwords: counted.passwords })
      await weaker.verifier.verify('alice', alicePassword)
      assert.equal(weaker.users.get('alice')?.passwordHash, aliceHash)
      assert.equal(counted.counts.hashed, 0)
    })

    it('lets a password change made during the check win over the upgrade', async () => {
      const { users, verifier } = setUp({ ttlMs: 60_000, cost: stronger })
      const check = verifier.verify('alice', alicePassword)
      await nextTurn() // the check is now hashing against the old hash
      users.put(alice(aliceNewHash))
      assert.deepEqual(await check, alice(), 'the check read the user before the change')
      assert.equal(users.get('alice')?.passwordHash, aliceNewHash)
      assert.equal(await verifier.verify('alice', alicePassword), undefined)
    })
  })
})

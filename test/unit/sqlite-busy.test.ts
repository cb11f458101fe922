// The async retry that replaces better-sqlite3's blocking busy_timeout (store/dialects/sqlite-busy.ts),
// run against a fake clock: it counts attempts and pauses, never real time.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { DomainError } from '../../src/domain/errors.ts'
import { type BusyClock, isBusy, pauseBefore, whileBusy } from '../../src/store/dialects/sqlite-busy.ts'

/** What better-sqlite3 throws: a SqliteError carries the SQLite result code name in `code`. */
const sqliteError = (code: string, message = 'database is locked') =>
  Object.assign(new Error(message), { name: 'SqliteError', code })

/** A clock whose sleep moves time on at once and remembers each pause. */
function fakeClock(random = () => 0.5): BusyClock & { pauses: number[] } {
  let now = 0
  const pauses: number[] = []
  return {
    pauses,
    now: () => now,
    random,
    async sleep(ms) {
      pauses.push(ms)
      now += ms
    },
  }
}

/** An attempt that fails with `error` the first `failures` times, then returns 'done'. */
function failing(failures: number, error: unknown = sqliteError('SQLITE_BUSY')) {
  const state = { calls: 0 }
  const attempt = async () => {
    state.calls++
    if (state.calls <= failures) throw error
    return 'done'
  }
  return { state, attempt }
}

describe('isBusy', () => {
  it('recognises SQLITE_BUSY and its extended codes', () => {
    for (const code of [
      'SQLITE_BUSY',
      'SQLITE_BUSY_RECOVERY',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_BUSY_TIMEOUT',
    ]) {
      assert.equal(isBusy(sqliteError(code)), true, code)
    }
  })

  it('does not take other errors, codes that merely start alike, or non-errors for busy', () => {
    for (const value of [
      sqliteError('SQLITE_LOCKED'),
      sqliteError('SQLITE_BUSYNESS'),
      sqliteError('SQLITE_CONSTRAINT'),
      new Error('database is locked'),
      null,
      undefined,
      'SQLITE_BUSY',
    ]) {
      assert.equal(isBusy(value), false, String(value))
    }
  })
})

describe('whileBusy', () => {
  const wait = { waitMs: 300, what: 'a write transaction' }

  it('returns the first attempt that succeeds, pausing between busy ones', async () => {
    const clock = fakeClock()
    const { state, attempt } = failing(3)
    assert.equal(await whileBusy(attempt, wait, clock), 'done')
    assert.equal(state.calls, 4)
    assert.equal(clock.pauses.length, 3, 'one pause before each retry')
  })

  it('passes any other error through at once, without retrying', async () => {
    const clock = fakeClock()
    const constraint = sqliteError('SQLITE_CONSTRAINT', 'UNIQUE constraint failed')
    const { state, attempt } = failing(1, constraint)
    await assert.rejects(whileBusy(attempt, wait, clock), (error) => error === constraint)
    assert.equal(state.calls, 1)
    assert.deepEqual(clock.pauses, [])
  })

  it('gives up once the wait is spent with "unavailable", whose cause says what waited and why', async () => {
    const clock = fakeClock()
    const busy = sqliteError('SQLITE_BUSY')
    const { state, attempt } = failing(Number.POSITIVE_INFINITY, busy)
    await assert.rejects(whileBusy(attempt, wait, clock), (error) => {
      assert.ok(error instanceof DomainError)
      assert.equal(error.code, 'unavailable')
      assert.doesNotMatch(error.message, /sqlite/i, 'the client-facing message names no driver')
      const cause = error.cause as Error
      assert.match(cause.message, /gave up on a write transaction after 300 ms and \d+ attempts/)
      assert.match(cause.message, /another connection holds the lock \(SQLITE_BUSY\)/)
      assert.equal(cause.cause, busy, 'the driver error stays reachable for the log')
      return true
    })
    assert.equal(clock.now(), 300, 'waits exactly the limit: the last pause is cut to what is left')
    assert.equal(state.calls, clock.pauses.length + 1)
    assert.ok(state.calls > 3, `retries several times within the limit, not once (${state.calls})`)
  })

  it('tries exactly once when the wait is 0', async () => {
    const clock = fakeClock()
    const { state, attempt } = failing(Number.POSITIVE_INFINITY)
    await assert.rejects(whileBusy(attempt, { waitMs: 0, what: 'a read' }, clock), DomainError)
    assert.equal(state.calls, 1)
    assert.deepEqual(clock.pauses, [])
  })

  it('never waits past its limit, whatever the limit and the jitter', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 5_000 }),
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1 }),
        async (waitMs, randoms) => {
          let i = 0
          const clock = fakeClock(() => randoms[i++ % randoms.length] as number)
          const { attempt } = failing(Number.POSITIVE_INFINITY)
          await assert.rejects(whileBusy(attempt, { waitMs, what: 'a read' }, clock), DomainError)
          assert.ok(Math.abs(clock.now() - waitMs) < 1e-6, `waited ${clock.now()} of ${waitMs} ms`)
          assert.ok(clock.pauses.every((ms) => ms > 0))
        },
      ),
    )
  })
})

describe('pauseBefore', () => {
  it('starts at a few ms, doubles, and stays within 50–100 ms once it reaches the cap', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 10].map((retry) => pauseBefore(retry, 0.999_999)).map(Math.round),
      [4, 8, 16, 32, 64, 100, 100, 100],
    )
    assert.deepEqual(
      [0, 1, 5, 10].map((retry) => pauseBefore(retry, 0)),
      [2, 4, 50, 50],
      'jitter takes at most half of a pause away',
    )
  })
})

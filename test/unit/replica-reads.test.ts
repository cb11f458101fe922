// The pure parts of the read replicas: LSNs, lag from the primary's positions, the write horizon
// that read-your-writes waits for, the split of a multi-host DATABASE_READ_URL, and no-cache.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { asksForNewest } from '../../src/http/primary-reads.ts'
import { PrimaryPositions, parseLsn } from '../../src/store/dialects/replica-lag.ts'
import { replicaDescription, replicaUrls } from '../../src/store/dialects/replica-urls.ts'
import { WriteHorizon } from '../../src/store/dialects/write-horizon.ts'
import { primaryRequired, readingPrimary, replicasOpened } from '../../src/store/read-target.ts'

describe('parseLsn', () => {
  it('orders LSNs as PostgreSQL does, across the 32-bit halves', () => {
    assert.equal(parseLsn('0/0'), 0n)
    assert.equal(parseLsn('16/B374D848'), (0x16n << 32n) | 0xb374d848n)
    assert.ok(parseLsn('1/0') > parseLsn('0/FFFFFFFF'))
    assert.throws(() => parseLsn('nonsense'))
  })
})

describe('PrimaryPositions', () => {
  it("measures a replica's lag from the newest primary position it has replayed", () => {
    const positions = new PrimaryPositions(10_000)
    positions.add(1_000, 100n)
    positions.add(1_100, 200n)
    positions.add(1_200, 300n)
    assert.equal(positions.lagMs(300n, 1_250), 50)
    assert.equal(positions.lagMs(250n, 1_250), 150)
    assert.equal(positions.lagMs(99n, 1_250), Number.POSITIVE_INFINITY)
  })

  it("keeps an idle primary's replica at no lag: its position does not move, nor does the lag", () => {
    const positions = new PrimaryPositions(1_000)
    for (let at = 0; at <= 60_000; at += 100) positions.add(at, 500n)
    assert.equal(positions.lagMs(500n, 60_001), 1)
  })

  it('forgets positions older than it needs, keeping one past the window', () => {
    const positions = new PrimaryPositions(500)
    for (let at = 0; at <= 5_000; at += 100) positions.add(at, BigInt(at))
    assert.equal(positions.lagMs(4_400n, 5_000), 600)
    assert.equal(positions.lagMs(100n, 5_000), Number.POSITIVE_INFINITY)
  })
})

describe('WriteHorizon', () => {
  /** A primary whose position answers when told to. */
  const primary = () => {
    const asked: ((lsn: bigint) => void)[] = []
    const failures: ((error: Error) => void)[] = []
    let lsn = 0n
    return {
      asked,
      position: () =>
        new Promise<bigint>((resolve, reject) => {
          asked.push(resolve)
          failures.push(reject)
        }),
      answer(next: bigint) {
        lsn = next
        asked.shift()?.(lsn)
        failures.shift()
      },
      fail() {
        asked.shift()
        failures.shift()?.(new Error('primary away'))
      },
    }
  }

  it('needs nothing before any write', () => {
    assert.equal(new WriteHorizon(async () => 1n).required(), 0n)
  })

  it('makes a read after a write wait for a position asked after its commit', async () => {
    const p = primary()
    const horizon = new WriteHorizon(p.position)
    horizon.committed()
    const required = horizon.required()
    assert.ok(required instanceof Promise)
    p.answer(42n)
    assert.equal(await required, 42n)
    assert.equal(horizon.required(), 42n)
  })

  it('shares one question among the writes that commit while one is on its way', async () => {
    const p = primary()
    const horizon = new WriteHorizon(p.position)
    horizon.committed()
    horizon.committed()
    horizon.committed()
    // The first may have been asked before the later commits: one more, after it, covers them all.
    assert.equal(p.asked.length, 1)
    const required = horizon.required()
    p.answer(10n)
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(p.asked.length, 1)
    p.answer(20n)
    assert.equal(await required, 20n)
  })

  it('sends the read to the primary when the position cannot be had, and asks again next time', async () => {
    const p = primary()
    const horizon = new WriteHorizon(p.position)
    horizon.committed()
    const required = horizon.required()
    p.fail()
    assert.equal(await required, undefined)
    const next = horizon.required()
    assert.ok(next instanceof Promise)
    p.answer(7n)
    assert.equal(await next, 7n)
  })
})

describe('replicaUrls', () => {
  it("splits libpq's multi-host form into one URL per replica, user, database and parameters kept", () => {
    assert.deepEqual(replicaUrls('postgres://u:p@h1:5433,h2:5434/events?sslmode=require'), [
      'postgres://u:p@h1:5433/events?sslmode=require',
      'postgres://u:p@h2:5434/events?sslmode=require',
    ])
    assert.deepEqual(replicaUrls('postgresql://replica/events'), ['postgresql://replica:5432/events'])
  })

  it('names the replicas and both bounds in one start-up line, without credentials', () => {
    const line = replicaDescription({
      databaseReadUrl: 'postgres://u:secret@h1:5433,h2/events',
      replicaMaxLagMs: 1000,
      replicaWaitMs: 50,
    })
    assert.match(line, /h1:5433, h2:5432 while less than 1000 ms .* up to 50 ms/)
    assert.doesNotMatch(line, /secret/)
  })
})

describe('asksForNewest and readingPrimary', () => {
  it('finds no-cache among the Cache-Control directives, and only it', () => {
    assert.equal(asksForNewest('no-cache'), true)
    assert.equal(asksForNewest('max-age=0, No-Cache'), true)
    assert.equal(asksForNewest(['max-age=0', 'no-cache']), true)
    assert.equal(asksForNewest('no-store'), false)
    assert.equal(asksForNewest('max-age=0'), false)
    assert.equal(asksForNewest('no-cachex'), false)
    assert.equal(asksForNewest(undefined), false)
  })

  it('holds the primary-only context through awaits, and only inside', async () => {
    replicasOpened()
    assert.equal(primaryRequired(), false)
    await readingPrimary(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1))
      assert.equal(primaryRequired(), true)
    })
    assert.equal(primaryRequired(), false)
  })
})

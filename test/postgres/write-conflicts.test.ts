// CONTRACT.md §5: a write that PostgreSQL rolls back for a deadlock (40P01) is run again inside the
// store, a bounded number of times, and then answered 503 with Retry-After, never 500. The
// deadlocks are real: the test's own database gets an AFTER UPDATE trigger on events that takes an
// advisory lock, which a second connection (the "rival") holds; the rival then updates the row the
// service's write has locked, closing the cycle. The rival waits 60 s before it looks for a
// deadlock, the service's connection the default 1 s, so PostgreSQL always picks the service's
// transaction as the victim (it checks first).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { startService, type TestService } from '../support/service.ts'
import { postgres, postgresSkipReason } from '../support/stores.ts'

const eventType = 'application/vnd.service.event+json'
const lockKey = 8_675_309

describe('[postgres] writes that lose a deadlock', { skip: postgresSkipReason ?? false }, () => {
  let service: TestService
  let rival: pg.Client
  let eventId: number

  before(async () => {
    if (!postgres) return
    service = await startService(postgres)
    rival = new pg.Client({ connectionString: service.databaseUrl })
    await rival.connect()
    await rival.query(`set deadlock_timeout = '60s'`)
    await rival.query(`
      create function test_wait_for_rival() returns trigger language plpgsql as $$
      begin perform pg_advisory_xact_lock(${lockKey}); return null; end $$`)
    await rival.query(`create trigger test_wait_for_rival after update on events
      for each row execute function test_wait_for_rival()`)
    const location = await service.store.createLocation({ name: 'Hall', address: '1 Square' })
    const event = await service.store.createEvent({
      title: 'Before',
      date: Date.parse('2026-12-04T19:30:00Z'),
      locationId: location.id,
    })
    eventId = event.id
  })

  after(async () => {
    await rival?.end()
    await service?.close()
  })

  /** True once a backend waits for the rival's advisory lock: the service's write. */
  async function serviceWaits(): Promise<boolean> {
    const { rows } = await rival.query(
      // pg_locks is the whole cluster's: other tests' databases take advisory locks of their own
      // (migrations), so only this database's wait for this key counts.
      `select count(*)::int as n from pg_locks
        where locktype = 'advisory' and not granted and objid = $1 and objsubid = 1
          and database = (select oid from pg_database where datname = current_database())`,
      [lockKey],
    )
    return rows[0].n > 0
  }

  async function deadlocks(): Promise<number> {
    const { rows } = await rival.query(
      'select deadlocks::int as n from pg_stat_database where datname = current_database()',
    )
    return rows[0].n
  }

  /**
   * Takes the advisory lock (before the write is sent: a write that ran first would not wait for
   * it) and returns the rounds: `rounds` times, waits until the service's write waits for the
   * lock, then updates the write's row, a deadlock the write loses. They stop when `done` is set.
   */
  async function holdLockFor(rounds: number, done: { value: boolean }): Promise<{ made: Promise<number> }> {
    await rival.query('select pg_advisory_lock($1)', [lockKey])
    // Wrapped: an async function returning the promise itself would wait for the rounds.
    return { made: deadlockRounds(rounds, done) }
  }

  async function deadlockRounds(rounds: number, done: { value: boolean }): Promise<number> {
    let made = 0
    try {
      while (made < rounds && !done.value) {
        if (!(await serviceWaits())) {
          await new Promise((resolve) => setTimeout(resolve, 10))
          continue
        }
        await rival.query('begin')
        // Waits for the write's row lock until PostgreSQL ends the write (40P01).
        await rival.query('update events set title = title where id = $1', [eventId])
        await rival.query('rollback')
        made++
      }
    } finally {
      await rival.query('select pg_advisory_unlock($1)', [lockKey])
    }
    return made
  }

  const put = (title: string) =>
    service.request('PUT', `/events/${eventId}`, {
      headers: { authorization: service.editorAuth, 'content-type': eventType },
      body: JSON.stringify({ title, date: '2026-12-04T19:30:00Z' }),
    })

  it('runs a PUT that lost one deadlock again and answers 200 with the new state', async () => {
    const before = await deadlocks()
    const done = { value: false }
    const rounds = await holdLockFor(1, done)
    const res = await put('After one deadlock')
    done.value = true
    assert.equal(await rounds.made, 1)
    assert.equal(res.status, 200, res.text)
    assert.equal(res.json().title, 'After one deadlock')
    assert.ok((await deadlocks()) > before, 'PostgreSQL counted a deadlock')
  })

  it('answers 503 with Retry-After, not 500, when every attempt loses a deadlock, and changes nothing', async () => {
    const before = await deadlocks()
    const done = { value: false }
    // More rounds than the store makes attempts: each attempt loses.
    const rounds = await holdLockFor(10, done)
    const res = await put('Never written')
    done.value = true
    const made = await rounds.made
    assert.equal(res.status, 503, res.text)
    assert.equal(res.header('content-type'), 'application/problem+json')
    assert.match(res.header('retry-after') ?? '', /^\d+$/)
    assert.match(res.json().detail, /busy/)
    assert.doesNotMatch(res.text, /deadlock|40P01/i, 'no driver wording reaches the client')
    assert.ok(made >= 2, `the store tried more than once (${made} deadlocks)`)
    assert.ok((await deadlocks()) >= before + made)
    const read = await service.request('GET', `/events/${eventId}`)
    assert.equal(read.json().title, 'After one deadlock')
  })
})

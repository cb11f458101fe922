// The reader threads of a SQLite file store (store/dialects/sqlite-readers.ts): reads off the event
// loop under a time budget that counts the wait for a thread, a statement that overruns left to
// finish while its caller is refused, and a thread that cannot start replaced, its read a 503.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Sqlite from 'better-sqlite3'
import type { CompiledQuery } from 'kysely'
import { DomainError } from '../../src/domain/errors.ts'
import { openSqlite } from '../../src/store/dialects/sqlite.ts'
import { type ReaderOptions, SqliteReaders } from '../../src/store/dialects/sqlite-readers.ts'
import { openStore } from '../../src/store/open-store.ts'

const dir = mkdtempSync(join(tmpdir(), 'ers-readers-'))
const path = join(dir, 'events.db')
after(() => rmSync(dir, { recursive: true, force: true }))

const query = <R>(sql: string, parameters: unknown[] = []) =>
  ({ sql, parameters }) as unknown as CompiledQuery<R>
/** A statement that keeps a thread busy for a few seconds, whatever the data. */
const slow = query<{ n: number }>(
  'with recursive c(x) as (select 1 union all select x + 1 from c where x < 15000000) select count(*) as n from c',
)
const cheap = query<{ n: number }>('select count(*) as n from t where n > ?', [1])

/** Readers of the test's file, one thread, a budget of 10 s, unless `options` say otherwise. */
const newReaders = (options: Partial<ReaderOptions> = {}) =>
  new SqliteReaders({ path, busyTimeoutMs: 100, cacheKib: 2048, threads: 1, budgetMs: 10_000, ...options })

const code = (error: unknown) => (error instanceof DomainError ? error.code : String(error))

/** Asks a cheap read until the thread answers it within the budget. */
async function answeredAgain(readers: SqliteReaders) {
  const deadline = Date.now() + 60_000
  for (;;) {
    const outcome = await readers.read(cheap).then((rows) => rows, code)
    if (Array.isArray(outcome)) return assert.deepEqual(outcome, [{ n: 2 }])
    assert.equal(outcome, 'too_costly')
    assert.ok(Date.now() < deadline, 'the thread never answered within the budget')
  }
}

describe('SQLite reader threads', () => {
  before(() => {
    const db = new Sqlite(path)
    db.pragma('journal_mode = WAL')
    db.exec('create table t (n integer); insert into t values (1), (2), (3)')
    db.close()
  })

  it('answers a read from its own connection to the file', async () => {
    const readers = newReaders()
    try {
      assert.deepEqual(await readers.read(cheap), [{ n: 2 }])
      assert.deepEqual(readers.stats(), {
        overBudget: 0,
        crashed: 0,
        queued: 0,
        waits: 0,
        waitedMs: 0,
        refused: 0,
      })
    } finally {
      await readers.close()
    }
  })

  it('refuses a read past the budget with too_costly, and one that waited for the busy thread too', async () => {
    const readers = newReaders({ budgetMs: 300 })
    try {
      // Started first, so that the thread's own start (slower than the budget on a busy machine)
      // does not count below.
      await answeredAgain(readers)
      const refusedBefore = readers.stats().overBudget
      const started = performance.now()
      const costly = readers.read(slow).then(() => 'answered', code)
      const waiting = readers.read(cheap).then(() => 'answered', code)
      assert.equal(await costly, 'too_costly')
      assert.equal(await waiting, 'too_costly', 'the wait for a thread counts against the budget')
      assert.ok(performance.now() - started < 2_000, 'refused at the budget, not when the statement ended')
      assert.equal(readers.stats().overBudget - refusedBefore, 2)
      // The cheap read waited for the thread (until the budget ended): counted as a wait.
      assert.ok(readers.stats().waits >= 1)
      assert.ok(readers.stats().waitedMs >= 250)
      // The overrunning statement runs to its end; then the thread serves again.
      await answeredAgain(readers)
    } finally {
      await readers.close()
    }
  })

  it('answers unavailable (never a 500) when a thread cannot start, and starts a new one for the next read', async () => {
    const readers = newReaders({ path: join(dir, 'missing', 'events.db') })
    try {
      for (const attempt of [1, 2]) {
        const error = await readers.read(cheap).then(
          () => undefined,
          (e: unknown) => e,
        )
        assert.ok(error instanceof DomainError, String(error))
        assert.equal(error.code, 'unavailable')
        assert.ok(error.cause, 'the thread’s own error is kept for the log')
        assert.equal(readers.stats().crashed, attempt)
      }
    } finally {
      await readers.close()
    }
  })

  it('passes on an SQL error as the driver would throw it', async () => {
    const readers = newReaders()
    try {
      await assert.rejects(readers.read(query('select * from no_such_table')), /no such table/)
      assert.deepEqual(await readers.read(cheap), [{ n: 2 }], 'the thread goes on')
    } finally {
      await readers.close()
    }
  })

  it('leaves a store in memory reading on the event loop: no thread can open its database', async () => {
    const store = openStore('sqlite::memory:', { sqlite: { readBudgetMs: 1 } })
    try {
      await store.migrate()
      await store.importLocations([
        { name: 'Hall', address: '1 Road', events: [{ title: 'Jazz night', date: Date.UTC(2027, 0, 1) }] },
      ])
      // A budget of 1 ms would refuse it in a thread; on the loop no budget applies.
      const page = await store.listEvents({ page: 1, perPage: 20 }, { q: 'a' })
      assert.deepEqual(
        page.events.map((e) => e.title),
        ['Jazz night'],
      )
      assert.equal(store.readerStats(), undefined)
    } finally {
      await store.close()
    }
  })

  it('on close, refuses what waits and what runs, and does not wait for a busy thread', async () => {
    const readers = newReaders({ budgetMs: 60_000 })
    await readers.read(cheap)
    const running = readers.read(slow).then(() => 'answered', code)
    const waiting = readers.read(cheap).then(() => 'answered', code)
    const started = performance.now()
    await readers.close()
    assert.ok(performance.now() - started < 1_000, 'close returned while the statement still ran')
    assert.equal(await running, 'unavailable')
    assert.equal(await waiting, 'unavailable')
    assert.equal(await readers.read(cheap).then(() => 'answered', code), 'unavailable')
  })

  it("gives every connection, the main one and each thread's, the page cache it is asked for", async () => {
    const cacheOf = query<{ kib: number }>('select -cache_size as kib from pragma_cache_size')
    const readers = newReaders({ cacheKib: 777 })
    try {
      assert.deepEqual(await readers.read(cacheOf), [{ kib: 777 }])
    } finally {
      await readers.close()
    }
    const main = openSqlite(path, { cacheKib: 555 })
    try {
      assert.deepEqual(main.readNow?.(cacheOf), [{ kib: 555 }])
    } finally {
      await main.close()
    }
    // better-sqlite3 builds SQLite with 16 MiB; the store's own default is SQLite's, 2 MiB.
    const plain = openSqlite(path)
    try {
      assert.deepEqual(plain.readNow?.(cacheOf), [{ kib: 2048 }])
    } finally {
      await plain.close()
    }
  })
})

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Sqlite from 'better-sqlite3'
import { StatementCache } from '../../src/store/dialects/sqlite-driver.ts'

const sql = (n: number) => `select ${n} as n`

describe('StatementCache', () => {
  it('prepares a statement once and hands the same one back', () => {
    const cache = new StatementCache(new Sqlite(':memory:'), 4)
    const first = cache.get(sql(1))
    assert.equal(cache.get(sql(1)), first)
    assert.deepEqual(first.all(), [{ n: 1 }])
  })

  it('past its bound drops the oldest statement not used since it was kept, keeping used ones', () => {
    const cache = new StatementCache(new Sqlite(':memory:'), 3)
    const [a, b, c] = [1, 2, 3].map((n) => cache.get(sql(n)))
    cache.get(sql(1)) // a used again: it gets a second chance
    cache.get(sql(4)) // one must go: b, the oldest unused
    assert.equal(cache.get(sql(1)), a)
    assert.equal(cache.get(sql(3)), c)
    assert.notEqual(cache.get(sql(2)), b, 'b was dropped and is prepared anew')
  })

  it('drops a used statement too once every kept one has been used (second round)', () => {
    const cache = new StatementCache(new Sqlite(':memory:'), 2)
    const [a, b] = [1, 2].map((n) => cache.get(sql(n)))
    cache.get(sql(1))
    cache.get(sql(2))
    cache.get(sql(3)) // both used: both unmarked in turn, then a (the oldest) goes
    assert.equal(cache.get(sql(2)), b)
    assert.notEqual(cache.get(sql(1)), a)
  })
})

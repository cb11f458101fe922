import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { DomainError } from '../../src/domain/errors.ts'
import {
  defaultPage,
  lastPage,
  maxPage,
  offsetOf,
  type PagingInput,
  pageRelations,
  resolvePage,
} from '../../src/domain/paging.ts'

const max = 100

function badPaging(body: PagingInput | undefined, query: Record<string, unknown>, maxPerPage = max): void {
  assert.throws(
    () => resolvePage(body, query, maxPerPage),
    (error: unknown) => {
      assert.ok(error instanceof DomainError, `expected a DomainError, got ${String(error)}`)
      assert.equal(error.code, 'bad_paging')
      assert.ok(error.message.length > 0)
      return true
    },
    `expected bad_paging for body ${JSON.stringify(body)} and query ${JSON.stringify(query)}`,
  )
}

describe('resolvePage', () => {
  describe('defaults', () => {
    it('is page 1 of 20 with neither body nor query', () => {
      assert.deepEqual(resolvePage(undefined, {}, max), { page: 1, perPage: 20 })
      assert.deepEqual(defaultPage, { page: 1, perPage: 20 })
    })

    it('is page 1 of 20 with an empty body object', () => {
      assert.deepEqual(resolvePage({}, {}, max), { page: 1, perPage: 20 })
    })

    it('fills the missing parameter with its default', () => {
      assert.deepEqual(resolvePage({ page: 3 }, {}, max), { page: 3, perPage: 20 })
      assert.deepEqual(resolvePage({ per_page: 5 }, {}, max), { page: 1, perPage: 5 })
      assert.deepEqual(resolvePage(undefined, { page: '4' }, max), { page: 4, perPage: 20 })
      assert.deepEqual(resolvePage(undefined, { per_page: '7' }, max), { page: 1, perPage: 7 })
    })

    it('limits an explicit per_page to a configured maximum below the default', () => {
      badPaging(undefined, { per_page: '11' }, 10)
      assert.deepEqual(resolvePage(undefined, { per_page: '10' }, 10), { page: 1, perPage: 10 })
    })

    it('still answers a request without per_page when the configured maximum is below 20', () => {
      // MAX_PER_PAGE accepts 1–10000 (config.ts); a request that names no per_page must not become a
      // 400 because the default exceeds the deployment's maximum: the default is capped at it.
      assert.deepEqual(resolvePage(undefined, {}, 10), { page: 1, perPage: 10 })
      assert.deepEqual(resolvePage({ page: 2 }, {}, 1), { page: 2, perPage: 1 })
    })
  })

  describe('body parameters', () => {
    it('reads page and per_page from the body', () => {
      assert.deepEqual(resolvePage({ page: 2, per_page: 50 }, {}, max), { page: 2, perPage: 50 })
    })

    it('accepts the bounds: page 1, per_page 1 and per_page = maximum', () => {
      assert.deepEqual(resolvePage({ page: 1, per_page: 1 }, {}, max), { page: 1, perPage: 1 })
      assert.deepEqual(resolvePage({ page: 1, per_page: 100 }, {}, max), { page: 1, perPage: 100 })
      assert.deepEqual(resolvePage({ per_page: 7 }, {}, 7), { page: 1, perPage: 7 })
    })

    it('accepts a very large page up to maxPage (a page past the end is not an error)', () => {
      assert.deepEqual(resolvePage({ page: 1_000_000 }, {}, max), { page: 1_000_000, perPage: 20 })
      assert.deepEqual(resolvePage({ page: maxPage }, {}, max), { page: maxPage, perPage: 20 })
      assert.deepEqual(resolvePage(undefined, { page: String(maxPage) }, max), { page: maxPage, perPage: 20 })
    })

    it('refuses a page above maxPage (10^9: offsets stay exact integers on both stores)', () => {
      assert.equal(maxPage, 1_000_000_000)
      badPaging({ page: maxPage + 1 }, {})
      badPaging(undefined, { page: String(maxPage + 1) })
      badPaging({ page: Number.MAX_SAFE_INTEGER }, {})
    })

    const bad: [string, PagingInput][] = [
      ['page 0', { page: 0 }],
      ['page -1', { page: -1 }],
      ['page 1.5', { page: 1.5 }],
      ['page beyond the safe integers', { page: 2 ** 53 }],
      ['page as a string', { page: '2' }],
      ['page null', { page: null }],
      ['page true', { page: true }],
      ['page an array', { page: [1] }],
      ['per_page 0', { per_page: 0 }],
      ['per_page -5', { per_page: -5 }],
      ['per_page above the maximum', { per_page: 101 }],
      ['per_page 2.5', { per_page: 2.5 }],
      ['per_page as a string', { per_page: '20' }],
      ['per_page null', { per_page: null }],
      ['per_page NaN', { per_page: Number.NaN }],
      ['per_page Infinity', { per_page: Number.POSITIVE_INFINITY }],
    ]
    for (const [name, body] of bad) {
      it(`refuses ${name} with bad_paging`, () => badPaging(body, {}))
    }
  })

  describe('query parameters', () => {
    it('reads plain integer strings', () => {
      assert.deepEqual(resolvePage(undefined, { page: '2', per_page: '50' }, max), { page: 2, perPage: 50 })
      assert.deepEqual(resolvePage(undefined, { page: '1', per_page: '100' }, max), { page: 1, perPage: 100 })
    })

    it('refuses unknown query parameters', () => {
      badPaging(undefined, { pages: '1' })
      badPaging(undefined, { limit: '10' })
      badPaging(undefined, { page: '1', sort: 'date' })
      badPaging({ page: 1 }, { perPage: '20' })
    })

    it('refuses a repeated parameter (arrives as an array)', () => {
      badPaging(undefined, { page: ['1', '2'] })
      badPaging(undefined, { page: ['1', '1'] })
      badPaging(undefined, { per_page: ['20'] })
    })

    const notPlain = [
      '01',
      '007',
      '1.0',
      '1.',
      '.5',
      '+1',
      '-1',
      ' 1',
      '1 ',
      '',
      '1e2',
      '0x10',
      'one',
      '１',
      '2_0',
    ]
    for (const value of notPlain) {
      it(`refuses page=${JSON.stringify(value)} as not a plain integer`, () => {
        badPaging(undefined, { page: value })
        badPaging(undefined, { per_page: value })
      })
    }

    it('refuses out-of-range query values', () => {
      badPaging(undefined, { page: '0' })
      badPaging(undefined, { per_page: '0' })
      badPaging(undefined, { per_page: '101' })
      badPaging(undefined, { page: '99999999999999999' })
      badPaging(undefined, { page: '9007199254740993' })
    })

    it('refuses a non-string query value', () => {
      badPaging(undefined, { page: 2 })
      badPaging(undefined, { page: null })
    })
  })

  describe('body and query together', () => {
    it('accepts the same value in both', () => {
      assert.deepEqual(resolvePage({ page: 3, per_page: 10 }, { page: '3', per_page: '10' }, max), {
        page: 3,
        perPage: 10,
      })
    })

    it('combines a parameter from the body with the other from the query', () => {
      assert.deepEqual(resolvePage({ page: 3 }, { per_page: '10' }, max), { page: 3, perPage: 10 })
      assert.deepEqual(resolvePage({ per_page: 10 }, { page: '3' }, max), { page: 3, perPage: 10 })
    })

    it('refuses a conflict with bad_paging', () => {
      badPaging({ page: 2 }, { page: '3' })
      badPaging({ per_page: 20 }, { per_page: '21' })
      badPaging({ page: 1, per_page: 20 }, { page: '1', per_page: '10' })
    })

    it('refuses a conflict even when one side is the default value', () => {
      badPaging({ page: 1 }, { page: '2' })
      badPaging({ per_page: 20 }, { per_page: '50' })
    })

    it('refuses a malformed query value even when the body has a valid one', () => {
      badPaging({ page: 1 }, { page: '01' })
    })

    it('agrees with itself for any valid pair given in both places', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: maxPage }), fc.integer({ min: 1, max }), (page, perPage) => {
          const expected = { page, perPage }
          const query = { page: String(page), per_page: String(perPage) }
          assert.deepEqual(resolvePage(undefined, query, max), expected)
          assert.deepEqual(resolvePage({ page, per_page: perPage }, {}, max), expected)
          assert.deepEqual(resolvePage({ page, per_page: perPage }, query, max), expected)
        }),
      )
    })

    it('refuses every disagreement', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 10_000 }), (a, b) => {
          fc.pre(a !== b)
          badPaging({ page: a }, { page: String(b) })
        }),
      )
    })
  })
})

describe('lastPage', () => {
  it('is 1 for an empty collection', () => {
    assert.equal(lastPage(0, 20), 1)
  })

  it('rounds up to whole pages', () => {
    assert.equal(lastPage(1, 20), 1)
    assert.equal(lastPage(20, 20), 1)
    assert.equal(lastPage(21, 20), 2)
    assert.equal(lastPage(40, 20), 2)
    assert.equal(lastPage(41, 20), 3)
    assert.equal(lastPage(32, 1), 32)
  })
})

describe('offsetOf', () => {
  it('is the number of events on the pages before', () => {
    assert.equal(offsetOf({ page: 1, perPage: 20 }), 0)
    assert.equal(offsetOf({ page: 2, perPage: 20 }), 20)
    assert.equal(offsetOf({ page: 3, perPage: 7 }), 14)
  })
})

describe('pageRelations', () => {
  it('has only first and last on the single page of a small collection', () => {
    assert.deepEqual(pageRelations({ page: 1, perPage: 20 }, 5), [
      { rel: 'first', page: 1 },
      { rel: 'last', page: 1 },
    ])
  })

  it('has only first and last (both page 1) on an empty collection', () => {
    assert.deepEqual(pageRelations({ page: 1, perPage: 20 }, 0), [
      { rel: 'first', page: 1 },
      { rel: 'last', page: 1 },
    ])
  })

  it('has next but no prev on the first of several pages', () => {
    assert.deepEqual(pageRelations({ page: 1, perPage: 20 }, 45), [
      { rel: 'first', page: 1 },
      { rel: 'next', page: 2 },
      { rel: 'last', page: 3 },
    ])
  })

  it('has prev and next on a middle page', () => {
    assert.deepEqual(pageRelations({ page: 2, perPage: 20 }, 45), [
      { rel: 'first', page: 1 },
      { rel: 'prev', page: 1 },
      { rel: 'next', page: 3 },
      { rel: 'last', page: 3 },
    ])
  })

  it('has prev but no next on the last page, including an exactly full one', () => {
    assert.deepEqual(pageRelations({ page: 3, perPage: 20 }, 45), [
      { rel: 'first', page: 1 },
      { rel: 'prev', page: 2 },
      { rel: 'last', page: 3 },
    ])
    assert.deepEqual(pageRelations({ page: 2, perPage: 20 }, 40), [
      { rel: 'first', page: 1 },
      { rel: 'prev', page: 1 },
      { rel: 'last', page: 2 },
    ])
  })

  it('points prev of a page past the end at the last page, and has no next', () => {
    assert.deepEqual(pageRelations({ page: 10, perPage: 20 }, 45), [
      { rel: 'first', page: 1 },
      { rel: 'prev', page: 3 },
      { rel: 'last', page: 3 },
    ])
    assert.deepEqual(pageRelations({ page: 2, perPage: 20 }, 0), [
      { rel: 'first', page: 1 },
      { rel: 'prev', page: 1 },
      { rel: 'last', page: 1 },
    ])
  })

  it('always has first = 1 and last = lastPage, with prev < page < next inside [1, last]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 100_000 }),
        (page, perPage, total) => {
          const relations = pageRelations({ page, perPage }, total)
          const last = lastPage(total, perPage)
          const byRel = new Map(relations.map((r) => [r.rel, r.page]))
          assert.equal(byRel.size, relations.length, 'no relation appears twice')
          assert.deepEqual(relations[0], { rel: 'first', page: 1 })
          assert.deepEqual(relations.at(-1), { rel: 'last', page: last })
          for (const { rel } of relations) assert.ok(['first', 'prev', 'next', 'last'].includes(rel))

          const prev = byRel.get('prev')
          const next = byRel.get('next')
          assert.equal(prev !== undefined, page > 1, 'prev exactly when not on page 1')
          assert.equal(next !== undefined, page < last, 'next exactly when before the last page')
          if (prev !== undefined) assert.ok(prev >= 1 && prev < page && prev <= last)
          if (next !== undefined) assert.ok(next === page + 1 && next <= last)
          if (page <= last && prev !== undefined) assert.equal(prev, page - 1)
          // RFC 8288 order: first, prev, next, last.
          const order = relations.map((r) => r.rel)
          assert.deepEqual(
            order,
            ['first', 'prev', 'next', 'last'].filter((r) => byRel.has(r)),
          )
        },
      ),
      { numRuns: 1000 },
    )
  })
})

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EventsQueryBody } from '../../src/contract/schemas.ts'
import { DomainError } from '../../src/domain/errors.ts'
import {
  filterQuery,
  foldTitle,
  isFiltered,
  maxQueryLength,
  resolveFilter,
} from '../../src/domain/event-filter.ts'

function badFilter(body: Record<string, unknown> | undefined, query: Record<string, unknown>, names: string) {
  assert.throws(
    () => resolveFilter(body, query),
    (error: unknown) => {
      assert.ok(error instanceof DomainError, String(error))
      assert.equal(error.code, 'bad_filter')
      assert.ok(error.message.includes(names), `${error.message} names ${names}`)
      return true
    },
  )
}

describe('resolveFilter', () => {
  it('finds everything without parameters', () => {
    assert.deepEqual(resolveFilter(undefined, {}), {})
    assert.equal(isFiltered(resolveFilter({}, {})), false)
  })

  it('reads each parameter from the body or the query string alike', () => {
    const expected = { from: Date.UTC(2027, 0, 1), to: Date.UTC(2027, 1, 1), locationId: 3, q: 'Jazz' }
    const text = {
      from: '2027-01-01T01:00:00+01:00',
      to: '2027-02-01T00:00:00Z',
      location_id: '3',
      q: 'Jazz',
    }
    assert.deepEqual(resolveFilter(undefined, text), expected)
    assert.deepEqual(resolveFilter({ ...text, location_id: 3 }, {}), expected)
    assert.deepEqual(resolveFilter({ ...text, location_id: 3 }, text), expected, 'both, agreeing')
    assert.ok(isFiltered(expected))
  })

  it('lets the same instant written two ways agree', () => {
    assert.deepEqual(resolveFilter({ from: '2027-01-01T00:00:00Z' }, { from: '2027-01-01T02:00:00+02:00' }), {
      from: Date.UTC(2027, 0, 1),
    })
  })

  it('refuses what the contract refuses, naming the parameter', () => {
    badFilter(undefined, { from: '2027-02-29T00:00:00Z' }, 'from')
    badFilter(undefined, { to: '2027-01-01' }, 'to')
    badFilter(undefined, { from: '2027-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' }, 'from')
    badFilter(undefined, { q: '' }, 'q')
    badFilter(undefined, { q: 'x'.repeat(maxQueryLength + 1) }, 'q')
    badFilter(undefined, { q: ['a', 'b'] }, 'q')
    badFilter(undefined, { q: 'a\u0000' }, 'q')
    for (const id of ['0', '-1', '1.5', '01', '+1', 'x', ''])
      badFilter(undefined, { location_id: id }, 'location_id')
    badFilter({ location_id: 0 }, {}, 'location_id')
    badFilter({ q: 'a' }, { q: 'A' }, 'q')
    badFilter({ location_id: 1 }, { location_id: '2' }, 'location_id')
  })

  it('counts q in characters (code points), as the body schema does', () => {
    assert.equal(resolveFilter(undefined, { q: '🎷'.repeat(maxQueryLength) }).q?.length, 2 * maxQueryLength)
    assert.equal((EventsQueryBody.properties.q as { maxLength?: number }).maxLength, maxQueryLength)
  })
})

describe('foldTitle', () => {
  it('is JavaScript toLowerCase, with its full Unicode mappings', () => {
    assert.equal(foldTitle('İ'), 'i\u0307')
    assert.equal(foldTitle('ẞ'), 'ß')
    assert.equal(foldTitle('ÄRGER'), 'ärger')
  })
})

describe('filterQuery', () => {
  it('writes instants in UTC and keeps a fixed order', () => {
    assert.deepEqual(filterQuery({ q: 'a', from: Date.UTC(2027, 0, 1) }), [
      ['from', '2027-01-01T00:00:00Z'],
      ['q', 'a'],
    ])
    assert.deepEqual(filterQuery({}), [])
  })
})

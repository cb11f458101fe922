import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { filterQuery } from '../../src/domain/event-filter.ts'
import { lastPage } from '../../src/domain/paging.ts'
import {
  entryPointLinks,
  eventLinks,
  linkHeader,
  locationLinks,
  pageLinkHeader,
  paths,
} from '../../src/http/links.ts'

describe('paths', () => {
  it('spells every URI as a path relative to the base URL', () => {
    assert.equal(paths.events, '/events')
    assert.equal(paths.event(7), '/events/7')
    assert.equal(paths.location(3), '/locations/3')
    assert.equal(paths.page(2, 20), '/events?page=2&per_page=20')
    assert.equal(paths.page(2, 20, paths.locations), '/locations?page=2&per_page=20')
    assert.equal(paths.eventsAt(3), '/events?location_id=3')
  })

  it('puts a filter before paging, as from, to, location_id, q, whatever order it was given in', () => {
    assert.equal(
      paths.page(
        2,
        20,
        paths.events,
        filterQuery({
          q: 'jazz',
          locationId: 3,
          to: Date.UTC(2027, 0, 1),
          from: Date.UTC(2026, 11, 1, 0, 0, 0, 5),
        }),
      ),
      '/events?from=2026-12-01T00:00:00.005Z&to=2027-01-01T00:00:00Z&location_id=3&q=jazz&page=2&per_page=20',
    )
  })

  it('percent-encodes q so that decoding the query string gives it back exactly', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }), (q) => {
        const query = paths.page(1, 20, paths.events, filterQuery({ q })).split('?')[1] as string
        assert.doesNotMatch(
          query,
          /[^A-Za-z0-9\-_.!~*'()%:&=]/,
          'only characters a query carries as they are',
        )
        assert.equal(new URLSearchParams(query).get('q'), q)
      }),
    )
  })
})

describe('eventLinks', () => {
  it('is exactly the two links of CONTRACT.md §2, in order', () => {
    assert.deepEqual(eventLinks({ id: 7, locationId: 3 }), [
      { uri: '/events/7', rel: '/rel/event self edit', type: 'application/vnd.service.event' },
      { uri: '/locations/3', rel: '/rel/location', type: 'application/vnd.service.location' },
    ])
  })

  it('uses the event id and its location id, never one for the other', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.integer({ min: 1, max: 2 ** 31 }),
        (id, locationId) => {
          const [self, location] = eventLinks({ id, locationId })
          assert.equal(self?.uri, `/events/${id}`)
          assert.equal(location?.uri, `/locations/${locationId}`)
        },
      ),
    )
  })
})

describe('locationLinks', () => {
  it('is exactly the self link and the link to its events of CONTRACT.md §2, in order', () => {
    assert.deepEqual(locationLinks({ id: 3 }), [
      { uri: '/locations/3', rel: '/rel/location self edit', type: 'application/vnd.service.location' },
      { uri: '/events?location_id=3', rel: '/rel/events', type: 'application/vnd.service.events' },
    ])
  })
})

describe('entryPointLinks and linkHeader', () => {
  it('link the entry point to both collections and the service description, and write links as RFC 8288 link-values', () => {
    const links = entryPointLinks()
    assert.deepEqual(links, [
      { uri: '/events', rel: '/rel/events', type: 'application/vnd.service.events' },
      { uri: '/locations', rel: '/rel/locations', type: 'application/vnd.service.locations' },
      { uri: '/openapi.json', rel: 'service-desc', type: 'application/vnd.oai.openapi' },
      { uri: '/docs', rel: 'service-doc', type: 'text/html' },
    ])
    assert.equal(
      linkHeader(links),
      '</events>; rel="/rel/events", </locations>; rel="/rel/locations", </openapi.json>; rel="service-desc", </docs>; rel="service-doc"',
    )
  })
})

describe('pageLinkHeader', () => {
  it('has only first and last for a single page', () => {
    assert.equal(
      pageLinkHeader({ page: 1, perPage: 20 }, 5),
      '</events?page=1&per_page=20>; rel="first", </events?page=1&per_page=20>; rel="last"',
    )
  })

  it('has first, next and last on the first of three pages', () => {
    assert.equal(
      pageLinkHeader({ page: 1, perPage: 20 }, 45),
      '</events?page=1&per_page=20>; rel="first", ' +
        '</events?page=2&per_page=20>; rel="next", ' +
        '</events?page=3&per_page=20>; rel="last"',
    )
  })

  it('has first, prev, next and last on a middle page', () => {
    assert.equal(
      pageLinkHeader({ page: 2, perPage: 5 }, 32),
      '</events?page=1&per_page=5>; rel="first", ' +
        '</events?page=1&per_page=5>; rel="prev", ' +
        '</events?page=3&per_page=5>; rel="next", ' +
        '</events?page=7&per_page=5>; rel="last"',
    )
  })

  it('has first, prev and last on the last page', () => {
    assert.equal(
      pageLinkHeader({ page: 7, perPage: 5 }, 32),
      '</events?page=1&per_page=5>; rel="first", ' +
        '</events?page=6&per_page=5>; rel="prev", ' +
        '</events?page=7&per_page=5>; rel="last"',
    )
  })

  it('points prev of a page past the end at the last page', () => {
    assert.equal(
      pageLinkHeader({ page: 50, perPage: 100 }, 150),
      '</events?page=1&per_page=100>; rel="first", ' +
        '</events?page=2&per_page=100>; rel="prev", ' +
        '</events?page=2&per_page=100>; rel="last"',
    )
  })

  it('is a valid RFC 8288 list whose links keep per_page and stay within [1, last]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 50_000 }),
        (page, perPage, total) => {
          const field = pageLinkHeader({ page, perPage }, total)
          const parts = field.split(', ')
          const last = lastPage(total, perPage)
          for (const part of parts) {
            const m = /^<\/events\?page=(\d+)&per_page=(\d+)>; rel="(first|prev|next|last)"$/.exec(part)
            assert.ok(m, `unexpected link ${part}`)
            assert.equal(Number(m[2]), perPage)
            assert.ok(Number(m[1]) >= 1 && Number(m[1]) <= last)
          }
          assert.match(field, /rel="first"/)
          assert.match(field, /rel="last"/)
        },
      ),
    )
  })
})

// How the client follows links: relation tokens, paths appended to a base URL with a prefix,
// absolute URLs as they are, and RFC 8288 Link fields.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { findLink, normaliseBase, parseLinkHeader, resolveUri } from '../../packages/client/src/links.ts'

describe('client links', () => {
  it('appends a path to the base URL, keeping its prefix', () => {
    for (const base of [
      'https://example.com/api',
      'https://example.com/api/',
      'https://example.com/api?x=1',
    ]) {
      assert.equal(
        resolveUri(normaliseBase(base), '/events?page=2&per_page=5').href,
        'https://example.com/api/events?page=2&per_page=5',
      )
    }
    assert.equal(
      resolveUri(normaliseBase('http://localhost:8080'), '/events/7').href,
      'http://localhost:8080/events/7',
    )
    assert.equal(resolveUri(normaliseBase('http://localhost:8080/'), '/').href, 'http://localhost:8080/')
  })

  it('takes an absolute URL (a Link behind a trusted proxy) as it is', () => {
    assert.equal(
      resolveUri(normaliseBase('https://example.com/api'), 'https://example.com/api/events?page=2').href,
      'https://example.com/api/events?page=2',
    )
    assert.throws(() => resolveUri(normaliseBase('https://example.com'), 'events/7'), /not a path/)
  })

  it('matches one token of a rel', () => {
    const links = [
      { uri: '/locations/3', rel: '/rel/location', type: 't' },
      { uri: '/events/7', rel: '/rel/event self edit', type: 't' },
    ]
    assert.equal(findLink(links, 'edit')?.uri, '/events/7')
    assert.equal(findLink(links, '/rel/location')?.uri, '/locations/3')
    assert.equal(findLink(links, '/rel'), undefined)
  })

  it('reads the links of a Link field', () => {
    assert.deepEqual(
      parseLinkHeader(
        '</events?q=a%2Cb&page=1&per_page=2>; rel="first", <https://x.test/events?page=2>;rel=next',
      ),
      [
        { uri: '/events?q=a%2Cb&page=1&per_page=2', rel: 'first' },
        { uri: 'https://x.test/events?page=2', rel: 'next' },
      ],
    )
    assert.deepEqual(parseLinkHeader(undefined), [])
  })
})

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import {
  codedEtag,
  contentEtag,
  ifMatchHolds,
  ifNoneMatchHolds,
  parseEtagList,
  versionEtag,
  versionSet,
} from '../../src/domain/etag.ts'

describe('versionEtag', () => {
  it('is a strong tag made from the version number', () => {
    assert.equal(versionEtag(1), '"v1"')
    assert.equal(versionEtag(42), '"v42"')
  })
})

describe('contentEtag', () => {
  it('is a strong quoted tag, stable for the same bytes and different for different bytes', () => {
    const a = contentEtag('[1,{"page":1}]')
    assert.match(a, /^"[A-Za-z0-9_-]{27}"$/)
    assert.equal(contentEtag('[1,{"page":1}]'), a)
    assert.notEqual(contentEtag('[2,{"page":1}]'), a)
  })

  it('always parses back as one strong tag', () => {
    fc.assert(
      fc.property(fc.string(), (body) => {
        const tag = contentEtag(body)
        assert.deepEqual(parseEtagList(tag), [{ weak: false, tag }])
      }),
    )
  })
})

describe('parseEtagList', () => {
  it('reads a single strong tag', () => {
    assert.deepEqual(parseEtagList('"v1"'), [{ weak: false, tag: '"v1"' }])
  })

  it('reads a weak tag', () => {
    assert.deepEqual(parseEtagList('W/"v1"'), [{ weak: true, tag: '"v1"' }])
  })

  it('reads the empty opaque tag', () => {
    assert.deepEqual(parseEtagList('""'), [{ weak: false, tag: '""' }])
  })

  it('reads a list with optional whitespace and mixed strength', () => {
    assert.deepEqual(parseEtagList('"a", W/"b" ,"c",\tW/"d"'), [
      { weak: false, tag: '"a"' },
      { weak: true, tag: '"b"' },
      { weak: false, tag: '"c"' },
      { weak: true, tag: '"d"' },
    ])
  })

  it('keeps characters that are legal in an opaque tag, such as commas-free punctuation and obs-text', () => {
    assert.deepEqual(parseEtagList('"a/b=c;d"'), [{ weak: false, tag: '"a/b=c;d"' }])
    assert.deepEqual(parseEtagList('"caf\xe9"'), [{ weak: false, tag: '"caf\xe9"' }])
  })

  it('reads * alone, with surrounding whitespace', () => {
    assert.equal(parseEtagList('*'), '*')
    assert.equal(parseEtagList('  *  '), '*')
  })

  it('tolerates empty list elements (RFC 9110 §5.6.1.2: recipients must ignore them)', () => {
    assert.deepEqual(parseEtagList('"a",'), [{ weak: false, tag: '"a"' }])
    assert.deepEqual(parseEtagList('"a", , "b"'), [
      { weak: false, tag: '"a"' },
      { weak: false, tag: '"b"' },
    ])
    assert.deepEqual(parseEtagList(', "a"'), [{ weak: false, tag: '"a"' }])
  })

  const malformed = [
    'v1',
    '"v1',
    'v1"',
    '"v1" "v2"',
    'w/"v1"',
    'W/v1',
    'W/ "v1"',
    '"a"b"',
    '"with space"',
    '"tab\there"',
    '*, "v1"',
    '"v1", *',
    '**',
  ]
  for (const field of malformed) {
    it(`returns undefined for the malformed field ${JSON.stringify(field)}`, () => {
      assert.equal(parseEtagList(field), undefined)
    })
  }

  it('is not confused by a previous call (the sticky regex is reset)', () => {
    assert.equal(parseEtagList('"a", "b" x'), undefined)
    assert.deepEqual(parseEtagList('"c"'), [{ weak: false, tag: '"c"' }])
  })

  it('parses any well-formed list of tags back to those tags', () => {
    const etagc = fc.constantFrom(..."abcXYZ019!#$%&'()*+-./:;<=>?@[]^_`{|}~\x80\xff")
    const tag = fc
      .tuple(fc.boolean(), fc.string({ unit: etagc, maxLength: 12 }))
      .map(([weak, opaque]) => ({ weak, tag: `"${opaque}"` }))
    const space = fc.constantFrom('', ' ', '  ', '\t')
    fc.assert(
      fc.property(fc.array(fc.tuple(tag, space, space), { minLength: 1, maxLength: 6 }), (items) => {
        const field = items
          .map(([t, before, after]) => `${before}${t.weak ? 'W/' : ''}${t.tag}${after}`)
          .join(',')
        assert.deepEqual(
          parseEtagList(field),
          items.map(([t]) => t),
        )
      }),
    )
  })
})

describe('ifNoneMatchHolds (If-None-Match, weak comparison, RFC 9110 §13.1.2)', () => {
  it('is false when a strong tag in the list equals the current tag (→ 304 or 412)', () => {
    assert.equal(ifNoneMatchHolds('"v3"', '"v3"'), false)
    assert.equal(ifNoneMatchHolds('"v1", "v3"', '"v3"'), false)
  })

  it('is false when a weak tag has the same opaque tag (weak comparison)', () => {
    assert.equal(ifNoneMatchHolds('W/"v3"', '"v3"'), false)
    assert.equal(ifNoneMatchHolds('"v1", W/"v3"', '"v3"'), false)
  })

  it('is true when no tag matches (→ the method is performed)', () => {
    assert.equal(ifNoneMatchHolds('"v2"', '"v3"'), true)
    assert.equal(ifNoneMatchHolds('W/"v2", "v4"', '"v3"'), true)
    assert.equal(ifNoneMatchHolds('"V3"', '"v3"'), true)
  })

  it('is false for * when a current representation exists, true when none does', () => {
    assert.equal(ifNoneMatchHolds('*', '"v3"'), false)
    assert.equal(ifNoneMatchHolds('*', undefined), true)
    assert.equal(ifNoneMatchHolds('"v3"', undefined), true)
  })

  it('is true for a malformed field, which names no tag', () => {
    assert.equal(ifNoneMatchHolds('v3', '"v3"'), true)
    assert.equal(ifNoneMatchHolds('"v3" "v4"', '"v3"'), true)
    assert.equal(ifNoneMatchHolds('*, "v3"', '"v3"'), true)
  })

  it('is false for a list whenever the current tag is in it, weak or strong', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 50 }), { maxLength: 5 }),
        fc.nat({ max: 50 }),
        fc.boolean(),
        (others, current, weak) => {
          const tags = others.map((v) => `"v${v}"`)
          const field = [...tags, `${weak ? 'W/' : ''}"v${current}"`].join(', ')
          assert.equal(ifNoneMatchHolds(field, `"v${current}"`), false)
          const without = others.filter((v) => v !== current).map((v) => `W/"v${v}"`)
          if (without.length > 0) assert.equal(ifNoneMatchHolds(without.join(', '), `"v${current}"`), true)
        },
      ),
    )
  })
})

describe('ifMatchHolds (If-Match, strong comparison, RFC 9110 §13.1.1)', () => {
  it('is true for * when a current representation exists, false when none does', () => {
    assert.equal(ifMatchHolds('*', '"v3"'), true)
    assert.equal(ifMatchHolds(' * ', '"v3"'), true)
    assert.equal(ifMatchHolds('*', undefined), false)
  })

  it('is true when a strong tag in the list equals the current tag', () => {
    assert.equal(ifMatchHolds('"v3"', '"v3"'), true)
    assert.equal(ifMatchHolds('"v1", "v3"', '"v3"'), true)
  })

  it('is false for a weak tag, even with the same opaque tag', () => {
    assert.equal(ifMatchHolds('W/"v3"', '"v3"'), false)
    assert.equal(ifMatchHolds('W/"v3", "v4"', '"v3"'), false)
  })

  it('is false for another tag and for a malformed field (never an unconditional write)', () => {
    assert.equal(ifMatchHolds('"v2"', '"v3"'), false)
    assert.equal(ifMatchHolds('v3', '"v3"'), false)
    assert.equal(ifMatchHolds('"v3" "v4"', '"v3"'), false)
    assert.equal(ifMatchHolds('*, "v3"', '"v3"'), false)
  })
})

describe('versionSet (the versions a field names, for the store)', () => {
  it('is "any" for *', () => {
    assert.deepEqual(versionSet('*', 'strong'), { kind: 'any' })
    assert.deepEqual(versionSet(' * ', 'weak'), { kind: 'any' })
  })

  it('lists the versions of version tags', () => {
    assert.deepEqual(versionSet('"v3"', 'strong'), { kind: 'versions', versions: [3] })
    assert.deepEqual(versionSet('"v3", "v12"', 'weak'), { kind: 'versions', versions: [3, 12] })
  })

  it('leaves weak tags out of a strong comparison and keeps them in a weak one', () => {
    assert.deepEqual(versionSet('W/"v3"', 'strong'), { kind: 'versions', versions: [] })
    assert.deepEqual(versionSet('W/"v3", "v4"', 'strong'), { kind: 'versions', versions: [4] })
    assert.deepEqual(versionSet('W/"v3", "v4"', 'weak'), { kind: 'versions', versions: [3, 4] })
  })

  it('ignores tags that are not version tags of this service', () => {
    for (const field of ['"abc"', '"v0"', '"v03"', '"v-1"', '"v1.5"', '"V3"', '"v99999999999999999"']) {
      assert.deepEqual(versionSet(field, 'weak'), { kind: 'versions', versions: [] }, field)
    }
    assert.deepEqual(versionSet(contentEtag('x'), 'weak'), { kind: 'versions', versions: [] })
  })

  it('names no version when the field is malformed', () => {
    for (const field of ['v3', '"v3" "v4"', '*, "v3"']) {
      assert.deepEqual(versionSet(field, 'strong'), { kind: 'versions', versions: [] }, field)
      assert.deepEqual(versionSet(field, 'weak'), { kind: 'versions', versions: [] }, field)
    }
  })

  it('round-trips versionEtag for every version', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (version) => {
        const tag = versionEtag(version)
        assert.deepEqual(versionSet(tag, 'strong'), { kind: 'versions', versions: [version] })
        assert.deepEqual(versionSet(`W/${tag}`, 'strong'), { kind: 'versions', versions: [] })
        assert.deepEqual(versionSet(`W/${tag}`, 'weak'), { kind: 'versions', versions: [version] })
      }),
    )
  })
})

describe('codedEtag', () => {
  it('puts the coding inside the quotes, and names the same state as the identity tag', () => {
    assert.equal(codedEtag('"v3"', 'gzip'), '"v3+gzip"')
    const page = contentEtag('[1]')
    assert.equal(codedEtag(page, 'br'), `${page.slice(0, -1)}+br"`)
    for (const coded of [codedEtag('"v3"', 'gzip'), codedEtag('"v3"', 'br')]) {
      assert.equal(ifMatchHolds(coded, '"v3"'), true)
      assert.equal(ifNoneMatchHolds(coded, '"v3"'), false)
      assert.equal(ifMatchHolds(coded, '"v4"'), false)
      assert.deepEqual(versionSet(coded, 'strong'), { kind: 'versions', versions: [3] })
    }
    assert.equal(ifMatchHolds('W/"v3+gzip"', '"v3"'), false)
    assert.equal(ifNoneMatchHolds(codedEtag(page, 'gzip'), page), false)
  })
})

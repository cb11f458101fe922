import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { mediaTypes } from '../../src/contract/media-types.ts'
import { parseContentType, preferredType, responseType } from '../../src/http/negotiate.ts'

const event = mediaTypes.event
const json = mediaTypes.json
const html = 'text/html'
const offers = [event, json, html] as const

describe('preferredType', () => {
  describe('any type acceptable', () => {
    it('chooses the first offer when Accept is absent', () => {
      assert.equal(preferredType(undefined, offers), event)
    })

    it('chooses the first offer when Accept is empty or blank (RFC 9110 §12.5.1)', () => {
      assert.equal(preferredType('', offers), event)
      assert.equal(preferredType('   ', offers), event)
    })

    it('chooses the first offer for */*', () => {
      assert.equal(preferredType('*/*', offers), event)
    })

    it('chooses the first application/ offer for application/*', () => {
      assert.equal(preferredType('application/*', offers), event)
      assert.equal(preferredType('application/*', [html, json]), json)
    })

    it('chooses the text offer for text/*', () => {
      assert.equal(preferredType('text/*', offers), html)
    })

    it('follows the order of the offers when the client has no preference between them', () => {
      assert.equal(preferredType('*/*', [json, event]), json)
    })
  })

  describe('specific types', () => {
    it('chooses the exact type asked for', () => {
      assert.equal(preferredType(event, offers), event)
      assert.equal(preferredType(json, offers), json)
      assert.equal(preferredType(html, offers), html)
    })

    it('compares types case-insensitively and returns the offer as spelled', () => {
      assert.equal(preferredType('APPLICATION/JSON', offers), json)
      assert.equal(preferredType('Application/Vnd.Service.Event+JSON', offers), event)
    })

    it('prefers a specific type over a wildcard of lower quality (a browser)', () => {
      const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
      assert.equal(preferredType(browser, offers), html)
    })

    it('chooses the vendor type for a typical API client', () => {
      assert.equal(preferredType(`${event}, ${mediaTypes.problem}`, offers), event)
    })
  })

  describe('q-values', () => {
    it('chooses the highest quality', () => {
      assert.equal(preferredType('application/json;q=0.5, text/html;q=0.9', offers), html)
      assert.equal(preferredType('text/html;q=0.5, application/json', offers), json)
      assert.equal(preferredType(`${event};q=0.2, application/json;q=0.3`, offers), json)
    })

    it('honours q-values written with spaces and three decimals', () => {
      assert.equal(preferredType('text/html; q=0.001, application/json; q=0.002', offers), json)
    })

    it('excludes a type with q=0 even when a wildcard would allow it', () => {
      assert.equal(preferredType('application/json;q=0, */*', [json, event]), event)
      assert.equal(preferredType(`${event};q=0, */*;q=0.5`, offers), json)
    })

    it('excludes a whole range with q=0', () => {
      assert.equal(preferredType('application/*;q=0, text/*', offers), html)
      assert.equal(preferredType('application/*;q=0', [event, json]), undefined)
    })

    it('is undefined when everything is excluded', () => {
      assert.equal(preferredType('*/*;q=0', offers), undefined)
      assert.equal(preferredType(`${event};q=0`, offers), undefined)
    })
  })

  describe('no match', () => {
    it('is undefined for a type that is not offered (→ 406)', () => {
      assert.equal(preferredType('application/xml', offers), undefined)
      assert.equal(preferredType('image/*', offers), undefined)
      assert.equal(preferredType('text/plain', [event, json]), undefined)
    })

    it('is undefined for a garbage field', () => {
      assert.equal(preferredType('garbage', offers), undefined)
      assert.equal(preferredType(',', offers), undefined)
    })

    it('is undefined when nothing is offered', () => {
      assert.equal(preferredType('*/*', []), undefined)
      assert.equal(preferredType(undefined, []), undefined)
    })
  })

  it('always returns one of the offers or undefined', () => {
    const type = fc.constantFrom(
      event,
      json,
      html,
      mediaTypes.problem,
      'text/plain',
      'image/png',
      '*/*',
      'application/*',
    )
    const q = fc.option(fc.integer({ min: 0, max: 1000 }).map((n) => (n / 1000).toFixed(3)))
    const range = fc.tuple(type, q).map(([t, v]) => (v === null ? t : `${t};q=${v}`))
    fc.assert(
      fc.property(fc.array(range, { maxLength: 5 }), (ranges) => {
        const chosen = preferredType(ranges.join(', '), offers)
        assert.ok(chosen === undefined || (offers as readonly string[]).includes(chosen))
      }),
    )
  })

  it('never chooses an offer the field gives q=0 explicitly and alone', () => {
    fc.assert(
      fc.property(fc.constantFrom(...offers), (excluded) => {
        const chosen = preferredType(`${excluded};q=0, */*;q=0.1`, offers)
        assert.notEqual(chosen, excluded)
        assert.ok(chosen !== undefined)
      }),
    )
  })
})

describe('parseContentType', () => {
  it('is undefined when the field is absent or empty', () => {
    assert.equal(parseContentType(undefined), undefined)
    assert.equal(parseContentType(''), undefined)
  })

  it('reads a bare type', () => {
    assert.deepEqual(parseContentType('application/json'), { type: 'application/json', charset: undefined })
    assert.deepEqual(parseContentType(event), { type: event, charset: undefined })
    assert.deepEqual(parseContentType(mediaTypes.mergePatch), {
      type: mediaTypes.mergePatch,
      charset: undefined,
    })
  })

  it('lower-cases the type and the charset (both are case-insensitive)', () => {
    assert.deepEqual(parseContentType('Application/JSON; Charset=UTF-8'), {
      type: 'application/json',
      charset: 'utf-8',
    })
  })

  it('reads a quoted charset', () => {
    assert.deepEqual(parseContentType('application/json;charset="utf-8"'), {
      type: 'application/json',
      charset: 'utf-8',
    })
  })

  it('tolerates whitespace around the type and parameters', () => {
    assert.deepEqual(parseContentType('  application/json ; charset=utf-8 '), {
      type: 'application/json',
      charset: 'utf-8',
    })
  })

  it('ignores parameters other than charset and finds charset among them', () => {
    assert.deepEqual(parseContentType('application/json; foo=bar'), {
      type: 'application/json',
      charset: undefined,
    })
    assert.deepEqual(parseContentType('multipart/form-data; boundary=x; charset=latin1'), {
      type: 'multipart/form-data',
      charset: 'latin1',
    })
  })

  it('accepts a trailing semicolon', () => {
    assert.deepEqual(parseContentType('text/plain;'), { type: 'text/plain', charset: undefined })
  })

  const unparseable = [
    'json',
    'application',
    'application/',
    '/json',
    'application/json/x',
    'a/b c',
    ';charset=utf-8',
  ]
  for (const field of unparseable) {
    it(`is undefined for ${JSON.stringify(field)}`, () => {
      assert.equal(parseContentType(field), undefined)
    })
  }

  it('reads back any type/subtype with any charset', () => {
    const token = fc.stringMatching(/^[a-z0-9][a-z0-9.+-]{0,15}$/)
    fc.assert(
      fc.property(token, token, fc.option(token), (type, subtype, charset) => {
        const field = `${type.toUpperCase()}/${subtype}${charset === null ? '' : `; charset=${charset}`}`
        assert.deepEqual(parseContentType(field), {
          type: `${type}/${subtype}`,
          charset: charset ?? undefined,
        })
      }),
    )
  })
})

describe('preferredType and charset parameters', () => {
  it('ignores a charset parameter in Accept, since JSON is always UTF-8', () => {
    assert.equal(
      preferredType('application/json; charset=utf-8', [
        'application/vnd.service.event+json',
        'application/json',
      ]),
      'application/json',
    )
    assert.equal(preferredType('application/xml; charset=utf-8', ['application/json']), undefined)
  })
})

describe('responseType (the Content-Type of the answer)', () => {
  const events = mediaTypes.events
  const eventOffers = [event, json] as const
  const relationOffers = [json, html] as const

  it('labels with the vendor type whatever acceptable Accept chose it (CONTRACT.md §1)', () => {
    for (const accept of [undefined, '', '*/*', 'application/*', json, event, `${event};q=0.5, ${json}`]) {
      assert.equal(responseType(accept, eventOffers), event, `Accept: ${accept}`)
    }
  })

  it('labels with application/json when the vendor type is refused with q=0', () => {
    for (const accept of [
      `${event};q=0, ${json}`,
      `${json}, ${event}; q=0`,
      `${json}, ${event};q=0.000`,
      `${json}, application/*;q=0`,
      `${json}, */*;q=0`,
      `${json}; charset=utf-8, ${event};q=0`,
      `${json}, ${event.toUpperCase()};Q=0`,
    ]) {
      assert.equal(responseType(accept, eventOffers), json, `Accept: ${accept}`)
    }
  })

  it('still labels with the vendor type when a range refuses it but a more specific one accepts it', () => {
    assert.equal(responseType(`${json}, application/*;q=0, ${event};q=0.1`, eventOffers), event)
    assert.equal(responseType(`${json}, */*;q=0, ${event};q=0.1`, eventOffers), event)
  })

  it('refuses (406) exactly where the choice does', () => {
    for (const accept of [`${event};q=0`, 'application/xml', `${json};q=0, ${event};q=0`, '*/*;q=0']) {
      assert.equal(responseType(accept, eventOffers), undefined, `Accept: ${accept}`)
    }
  })

  it('leaves any other choice as it is', () => {
    assert.equal(responseType('text/html', relationOffers), html)
    assert.equal(responseType('*/*', relationOffers), json)
    assert.equal(responseType(json, [events, json]), events)
    assert.equal(responseType(`${events};q=0, ${json}`, [events, json]), json)
  })

  it('gives the same answer the second time (answers are remembered per list of offers)', () => {
    const accept = `${event};q=0, ${json}`
    assert.equal(responseType(accept, eventOffers), json)
    assert.equal(responseType(accept, eventOffers), json)
    assert.equal(responseType(accept, [event, json, html]), json)
    assert.equal(responseType('application/xml', eventOffers), undefined)
    assert.equal(responseType('application/xml', eventOffers), undefined)
  })

  it('differs from the choice only to put the vendor type for application/json, and never when q=0 refuses it', () => {
    const type = fc.constantFrom(event, json, html, '*/*', 'application/*', 'text/plain')
    const q = fc.option(fc.constantFrom('0', '0.0', '0.5', '1'))
    const range = fc.tuple(type, q).map(([t, v]) => (v === null ? t : `${t};q=${v}`))
    fc.assert(
      fc.property(fc.array(range, { maxLength: 4 }), (ranges) => {
        const accept = ranges.join(', ')
        const offers = [event, json, html]
        const chosen = preferredType(accept, offers)
        const label = responseType(accept, offers)
        if (label !== chosen) assert.deepEqual([chosen, label], [json, event], accept)
        // The exact type is the most specific range: with q=0 it refuses the type (RFC 9110 §12.5.1).
        const exact = ranges.filter((r) => r.split(';')[0] === event)
        if (exact.length === 1 && /;q=0(\.0)?$/.test(exact[0] as string))
          assert.notEqual(label, event, accept)
      }),
    )
  })
})

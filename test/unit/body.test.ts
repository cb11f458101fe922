import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { DomainError } from '../../src/domain/errors.ts'
import { parseJsonBody } from '../../src/http/body.ts'

const bytes = (text: string) => Buffer.from(text, 'utf8')

function badRequest(body: Buffer, detail?: RegExp): void {
  assert.throws(
    () => parseJsonBody(body),
    (error: unknown) => {
      assert.ok(error instanceof DomainError, `expected a DomainError, got ${String(error)}`)
      assert.equal(error.code, 'bad_request')
      if (detail) assert.match(error.message, detail)
      return true
    },
  )
}

describe('parseJsonBody', () => {
  describe('no content', () => {
    it('is undefined for an empty body', () => {
      assert.equal(parseJsonBody(Buffer.alloc(0)), undefined)
    })

    it('is undefined for a body of JSON whitespace only', () => {
      for (const text of [' ', '\n', '\r\n', '\t \n ', '   \r\n\t   ']) {
        assert.equal(parseJsonBody(bytes(text)), undefined, JSON.stringify(text))
      }
    })
  })

  describe('valid JSON', () => {
    it('parses objects, keeping field order and types', () => {
      const parsed = parseJsonBody(
        bytes('{"title":"Release party","date":"2026-12-04T19:30:00Z","location_id":3}'),
      )
      assert.deepEqual(parsed, { title: 'Release party', date: '2026-12-04T19:30:00Z', location_id: 3 })
      assert.deepEqual(Object.keys(parsed as object), ['title', 'date', 'location_id'])
    })

    it('parses the paging body with surrounding whitespace', () => {
      assert.deepEqual(parseJsonBody(bytes('\n { "page": 1, "per_page": 20 } \n')), { page: 1, per_page: 20 })
    })

    it('parses any JSON value, not only objects', () => {
      assert.deepEqual(parseJsonBody(bytes('[1,2]')), [1, 2])
      assert.equal(parseJsonBody(bytes('"x"')), 'x')
      assert.equal(parseJsonBody(bytes('null')), null)
      assert.equal(parseJsonBody(bytes('0')), 0)
    })

    it('decodes UTF-8 text, including astral characters and escapes', () => {
      assert.deepEqual(parseJsonBody(bytes('{"title":"Fête 🎉 \\u00e9"}')), { title: 'Fête 🎉 é' })
    })

    it('treats "constructor" without "prototype" as ordinary data', () => {
      assert.deepEqual(parseJsonBody(bytes('{"constructor":"x"}')), { constructor: 'x' })
    })

    it('parses back any JSON value that has no forbidden key', () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const text = JSON.stringify(value)
          fc.pre(!/"(__proto__|constructor)"/.test(text))
          assert.deepEqual(parseJsonBody(bytes(text)), JSON.parse(text))
        }),
      )
    })
  })

  describe('refused with bad_request', () => {
    it('refuses bytes that are not UTF-8', () => {
      badRequest(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), /UTF-8/)
      badRequest(Buffer.from('{"title":"Fête"}', 'latin1'), /UTF-8/)
      // Overlong "/" and a lone surrogate encoded in UTF-8 (CESU) are not UTF-8 either.
      badRequest(Buffer.from([0x22, 0xc0, 0xaf, 0x22]), /UTF-8/)
      badRequest(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), /UTF-8/)
    })

    it('refuses a body cut in the middle of a multi-byte character', () => {
      const whole = bytes('"é"')
      badRequest(whole.subarray(0, 2), /UTF-8/)
    })

    it('refuses malformed JSON', () => {
      for (const text of ['{', '{"a":}', "{'a':1}", '{"a":1,}', 'undefined', '{"a":1} x', 'NaN', '[1,]']) {
        badRequest(bytes(text), /not valid JSON/)
      }
    })

    it('refuses a __proto__ key at any depth', () => {
      badRequest(bytes('{"__proto__":{"admin":true}}'), /forbidden/)
      badRequest(bytes('{"title":"x","nested":{"__proto__":{"admin":true}}}'))
      badRequest(bytes('[{"__proto__":{}}]'))
    })

    it('refuses a __proto__ key written with JSON escapes', () => {
      badRequest(bytes('{"\\u005f_proto__":{"admin":true}}'))
      badRequest(bytes('{"__pr\\u006fto__":{"admin":true}}'))
    })

    it('refuses constructor.prototype', () => {
      badRequest(bytes('{"constructor":{"prototype":{"admin":true}}}'))
      badRequest(bytes('{"a":{"constructor":{"prototype":{}}}}'))
    })

    it('never lets a parsed body change Object.prototype', () => {
      for (const text of ['{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}']) {
        try {
          parseJsonBody(bytes(text))
        } catch {}
      }
      assert.equal(({} as Record<string, unknown>).polluted, undefined)
    })
  })

  it('either parses or throws bad_request, for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (array) => {
        try {
          parseJsonBody(Buffer.from(array))
        } catch (error) {
          assert.ok(error instanceof DomainError)
          assert.equal(error.code, 'bad_request')
        }
      }),
    )
  })
})

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { parseBasic } from '../../src/http/basic-auth.ts'

const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64')
const basic = (text: string) => `Basic ${encode(text)}`

describe('parseBasic', () => {
  it('reads the RFC 7617 §2 example (Aladdin / open sesame)', () => {
    assert.deepEqual(parseBasic('Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=='), {
      user: 'Aladdin',
      password: 'open sesame',
    })
  })

  it('is undefined when the field is absent or empty', () => {
    assert.equal(parseBasic(undefined), undefined)
    assert.equal(parseBasic(''), undefined)
  })

  describe('scheme', () => {
    it('matches the scheme name case-insensitively (RFC 9110 §11.1)', () => {
      for (const scheme of ['basic', 'BASIC', 'bAsIc']) {
        assert.deepEqual(parseBasic(`${scheme} ${encode('admin:secret')}`), {
          user: 'admin',
          password: 'secret',
        })
      }
    })

    it('allows several spaces after the scheme and trailing spaces', () => {
      assert.deepEqual(parseBasic(`Basic   ${encode('admin:secret')}  `), {
        user: 'admin',
        password: 'secret',
      })
    })

    it('is undefined for another scheme', () => {
      assert.equal(parseBasic(`Bearer ${encode('admin:secret')}`), undefined)
      assert.equal(parseBasic(`Digest ${encode('admin:secret')}`), undefined)
      assert.equal(parseBasic(`Basicx ${encode('admin:secret')}`), undefined)
    })

    it('is undefined without a space between scheme and credentials, or without credentials', () => {
      assert.equal(parseBasic(`Basic${encode('admin:secret')}`), undefined)
      assert.equal(parseBasic('Basic'), undefined)
      assert.equal(parseBasic('Basic '), undefined)
    })

    it('is undefined for the bare credentials without a scheme', () => {
      assert.equal(parseBasic(encode('admin:secret')), undefined)
    })
  })

  describe('user-id and password', () => {
    it('splits at the first colon: the password may contain colons', () => {
      assert.deepEqual(parseBasic(basic('admin:a:b::c')), { user: 'admin', password: 'a:b::c' })
      assert.deepEqual(parseBasic(basic('admin::')), { user: 'admin', password: ':' })
    })

    it('accepts an empty password', () => {
      assert.deepEqual(parseBasic(basic('admin:')), { user: 'admin', password: '' })
    })

    it('keeps spaces inside and around both parts', () => {
      assert.deepEqual(parseBasic(basic(' ad min : pass word ')), {
        user: ' ad min ',
        password: ' pass word ',
      })
    })

    it('decodes UTF-8 names and passwords (RFC 7617 §2.1 charset="UTF-8")', () => {
      assert.deepEqual(parseBasic(basic('José:pässwörd')), { user: 'José', password: 'pässwörd' })
      assert.deepEqual(parseBasic(basic('ユーザー:パスワード')), { user: 'ユーザー', password: 'パスワード' })
      assert.deepEqual(parseBasic(basic('emoji:🔑🔑')), { user: 'emoji', password: '🔑🔑' })
    })

    it('keeps a leading U+FEFF as a character of the user-id (RFC 3629 §6: no signature in UTF-8-only fields)', () => {
      assert.deepEqual(parseBasic(basic('\uFEFFadmin:secret')), { user: '\uFEFFadmin', password: 'secret' })
    })

    it('is undefined without a colon', () => {
      assert.equal(parseBasic(basic('adminsecret')), undefined)
    })

    it('is undefined for an empty user-id', () => {
      assert.equal(parseBasic(basic(':secret')), undefined)
      assert.equal(parseBasic(basic(':')), undefined)
    })

    const controls = ['\u0000', '\u0001', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f']
    for (const control of controls) {
      const name = JSON.stringify(control)
      it(`is undefined when the user-id or password contains the control character ${name}`, () => {
        assert.equal(parseBasic(basic(`ad${control}min:secret`)), undefined)
        assert.equal(parseBasic(basic(`admin:sec${control}ret`)), undefined)
        assert.equal(parseBasic(basic(`admin:secret${control}`)), undefined)
      })
    }
  })

  describe('encoding', () => {
    it('is undefined for bytes that are not UTF-8', () => {
      const latin1 = Buffer.from('José:secret', 'latin1').toString('base64')
      assert.equal(parseBasic(`Basic ${latin1}`), undefined)
      const bytes = Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString('base64')
      assert.equal(parseBasic(`Basic ${bytes}`), undefined)
      // An overlong encoding of "/" (0xc0 0xaf) is not UTF-8 either.
      const overlong = Buffer.from([0x61, 0x3a, 0xc0, 0xaf]).toString('base64')
      assert.equal(parseBasic(`Basic ${overlong}`), undefined)
    })

    const invalid = [
      'Basic !!!!',
      'Basic YWRtaW46c2VjcmV0=', // length not a multiple of 4
      'Basic YWRtaW46c2VjcmV', // unpadded
      'Basic YWRt aW46c2VjcmV0', // space inside
      'Basic YWRtaW46c2Vj=cmV0',
      'Basic YQ===',
      'Basic ====',
      'Basic YWRtaW46c2VjcmV0\t',
      'Basic YWRtaW46c2VjcmV0,',
      'Basic YWRtaW46c2VjcmV0-_',
      'Basic YWRtaW46c2VjcmV0, Basic YWRtaW46c2VjcmV0',
    ]
    for (const field of invalid) {
      it(`is undefined for the invalid credentials ${JSON.stringify(field)}`, () => {
        assert.equal(parseBasic(field), undefined)
      })
    }
  })

  describe('properties', () => {
    // RFC 5234 CTL: %x00-1F / %x7F.
    const noControls = (s: string) => [...s].every((c) => c.charCodeAt(0) >= 0x20 && c !== '\u007f')
    const user = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter((s) => !s.includes(':'))
    const password = fc.string({ unit: 'grapheme', maxLength: 30 })
    // Printable ASCII, BMP letters, astral symbols, controls and colons (fc's 'binary' unit is slow to set up).
    const mixedUnit = fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCodePoint(c)),
      fc.integer({ min: 0xa0, max: 0xd7ff }).map((c) => String.fromCodePoint(c)),
      fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
      fc.constantFrom('\u0000', '\t', '\n', '\u001f', '\u007f', '\u0085', ':', '\uFEFF'),
    )

    it('round-trips every user-id without colon and every password without control characters', () => {
      fc.assert(
        fc.property(user, password, fc.constantFrom('Basic', 'basic', 'BASIC'), (u, p, scheme) => {
          fc.pre(noControls(u) && noControls(p))
          assert.deepEqual(parseBasic(`${scheme} ${encode(`${u}:${p}`)}`), { user: u, password: p })
        }),
        { numRuns: 500 },
      )
    })

    it('never returns credentials with a control character, a colon in the user-id or an empty user-id', () => {
      fc.assert(
        fc.property(fc.string({ unit: mixedUnit, maxLength: 16 }), (text) => {
          const result = parseBasic(basic(text))
          if (result === undefined) return
          assert.ok(result.user.length > 0)
          assert.ok(!result.user.includes(':'))
          assert.ok(noControls(result.user) && noControls(result.password))
          assert.equal(`${result.user}:${result.password}`, text)
        }),
        { numRuns: 500 },
      )
    })

    it('never throws, whatever the field', () => {
      fc.assert(
        fc.property(fc.string(), (field) => {
          parseBasic(field)
          parseBasic(`Basic ${field}`)
        }),
      )
    })
  })
})

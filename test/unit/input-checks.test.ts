// The pure checks behind hostile-input answers: duplicate member names (RFC 7493 §2.3), malformed
// percent-encoding (RFC 3986 §2.1), and the cap on request text quoted into problems (CONTRACT §5).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { echo } from '../../src/domain/errors.ts'
import { duplicateMemberName } from '../../src/http/json-duplicates.ts'
import { malformedPercentEncoding } from '../../src/http/percent-encoding.ts'
import { capEchoes, problem } from '../../src/http/problems.ts'

describe('duplicateMemberName', () => {
  it('finds a name twice in one object, at any depth, compared decoded', () => {
    assert.equal(duplicateMemberName('{"a":1,"a":2}'), 'a')
    assert.equal(duplicateMemberName('{"a":{"b":1,"b":2}}'), 'b')
    assert.equal(duplicateMemberName('[{"x":[{"c":1,"c":2}]}]'), 'c')
    assert.equal(duplicateMemberName('{"title":"a","\\u0074itle":"b"}'), 'title')
    assert.equal(duplicateMemberName('{"a\\"b":1,"a\\u0022b":2}'), 'a"b')
  })

  it('passes names repeated only across objects, names equal to values, and strings holding braces', () => {
    for (const text of [
      '{"a":{"a":1}}',
      '[{"a":1},{"a":2}]',
      '{"a":"a","b":"a"}',
      '{"a":"{\\"a\\":1,","b":[",\\"a\\":"]}',
      '{"a":[1,{"b":2},"a"],"b":{}}',
      '"a"',
      '[]',
    ]) {
      assert.equal(duplicateMemberName(text), undefined, text)
    }
  })

  it('finds a duplicate exactly when an object written member by member repeats a name', () => {
    // Names written raw or escaped; values any JSON (made by JSON.stringify, so free of duplicates).
    const names = fc.constantFrom(['a', 'a'], ['a', '\\u0061'], ['b', 'b'], ['', ''], ['{', '{'], [',', ','])
    fc.assert(
      fc.property(fc.array(fc.tuple(names, fc.json()), { maxLength: 6 }), (members) => {
        const text = `{${members.map(([[, written], value]) => `"${written}":${value}`).join(',')}}`
        const decoded = members.map(([[name]]) => name)
        assert.equal(duplicateMemberName(text) !== undefined, new Set(decoded).size !== decoded.length, text)
        // Nested one level deeper inside an array, the answer is the same.
        assert.equal(duplicateMemberName(`[1,${text}]`), duplicateMemberName(text))
      }),
    )
  })
})

describe('malformedPercentEncoding', () => {
  it('flags % without two hex digits and octets that are not UTF-8, anywhere in the target', () => {
    for (const target of ['/events?q=%E0%A4%A', '/events?q=%ZZ', '/events?q=%', '/e/%ZZ', '/%', '/x?a=%C3']) {
      assert.equal(malformedPercentEncoding(target), true, target)
    }
    for (const target of ['/events?q=%25ZZ', '/events?q=%C3%A9', '/events/12', '/events?q=a+b']) {
      assert.equal(malformedPercentEncoding(target), false, target)
    }
  })
})

describe('capEchoes', () => {
  it('cuts each quoted piece of request text to 100 characters and an ellipsis, and leaves the rest', () => {
    const long = 'x'.repeat(3000)
    assert.equal(capEchoes(`there is no event ${echo(long)}`), `there is no event ${'x'.repeat(100)}…`)
    assert.equal(capEchoes(`a ${echo('short')} b`), 'a short b')
    assert.equal(capEchoes(`${echo(long)} and ${echo(long)}`), `${'x'.repeat(100)}… and ${'x'.repeat(100)}…`)
    // Surrogate pairs are not split: 100 code points.
    assert.equal(capEchoes(echo('😀'.repeat(150))), `${'😀'.repeat(100)}…`)
  })

  it('cannot be escaped by request text that holds the marks itself', () => {
    const hostile = `a\uE001${'y'.repeat(500)}\uE000b`
    const capped = capEchoes(`see ${echo(hostile)}`)
    assert.ok(!capped.includes('y'.repeat(101)), capped)
    assert.ok(!/[\uE000\uE001]/.test(capped))
  })

  it('is applied by the problem builder to the detail and every field error', () => {
    const long = 'z'.repeat(3000)
    const body = problem(422, `bad ${echo(long)}`, [
      { pointer: `/${echo(long)}`, detail: `is ${echo(long)}` },
    ])
    assert.ok(!JSON.stringify(body).includes('z'.repeat(101)))
  })
})

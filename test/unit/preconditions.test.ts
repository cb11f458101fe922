// The order of RFC 9110 §13.2.2 and its two forms: evaluated against an ETag (reads, POST) and
// reduced to a Precondition the store checks while writing. The property at the end holds the two
// forms to the same answers.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { versionEtag } from '../../src/domain/etag.ts'
import {
  type ConditionalFields,
  evaluatePreconditions,
  failedField,
  writePrecondition,
} from '../../src/domain/preconditions.ts'

const current = '"v3"'
const stale = '"v2"'
const proceed = { outcome: 'proceed' }
const notModified = { outcome: 'not_modified' }
const failed = (field: string) => ({ outcome: 'precondition_failed', field })

describe('evaluatePreconditions (RFC 9110 §13.2.2)', () => {
  it('proceeds when the request carries no precondition', () => {
    for (const method of ['GET', 'HEAD', 'QUERY', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      assert.deepEqual(evaluatePreconditions(method, {}, current), proceed, method)
    }
  })

  describe('step 1: If-Match', () => {
    it('answers 412 to every method when it is false, reads included', () => {
      for (const method of ['GET', 'HEAD', 'QUERY', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        for (const ifMatch of [stale, `W/${current}`, 'v3', '"x", W/"v3"']) {
          assert.deepEqual(evaluatePreconditions(method, { ifMatch }, current), failed('If-Match'), ifMatch)
        }
      }
    })

    it('proceeds for the current tag, a list holding it and *', () => {
      for (const ifMatch of [current, `${stale}, ${current}`, '*']) {
        assert.deepEqual(evaluatePreconditions('PUT', { ifMatch }, current), proceed, ifMatch)
      }
    })

    it('is false for * when there is no current representation', () => {
      assert.deepEqual(evaluatePreconditions('PUT', { ifMatch: '*' }, undefined), failed('If-Match'))
    })

    it('comes before If-None-Match: both false on a GET is 412, not 304', () => {
      assert.deepEqual(
        evaluatePreconditions('GET', { ifMatch: stale, ifNoneMatch: current }, current),
        failed('If-Match'),
      )
    })
  })

  describe('step 3: If-None-Match', () => {
    it('answers 304 to GET, HEAD and QUERY when it is false', () => {
      for (const method of ['GET', 'HEAD', 'QUERY']) {
        for (const ifNoneMatch of [current, `W/${current}`, `${stale}, ${current}`, '*']) {
          assert.deepEqual(evaluatePreconditions(method, { ifNoneMatch }, current), notModified, method)
        }
      }
    })

    it('answers 412 to every other method when it is false', () => {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        for (const ifNoneMatch of [current, `W/${current}`, `${stale}, ${current}`, '*']) {
          assert.deepEqual(
            evaluatePreconditions(method, { ifNoneMatch }, current),
            failed('If-None-Match'),
            `${method} If-None-Match: ${ifNoneMatch}`,
          )
        }
      }
    })

    it('proceeds for other tags and for a malformed field', () => {
      for (const ifNoneMatch of [stale, `W/${stale}`, 'v3']) {
        assert.deepEqual(evaluatePreconditions('PUT', { ifNoneMatch }, current), proceed, ifNoneMatch)
        assert.deepEqual(evaluatePreconditions('GET', { ifNoneMatch }, current), proceed, ifNoneMatch)
      }
    })

    it('holds for * when there is no current representation', () => {
      assert.deepEqual(evaluatePreconditions('PUT', { ifNoneMatch: '*' }, undefined), proceed)
    })

    it('is evaluated after a true If-Match', () => {
      assert.deepEqual(
        evaluatePreconditions('GET', { ifMatch: current, ifNoneMatch: current }, current),
        notModified,
      )
      assert.deepEqual(
        evaluatePreconditions('PATCH', { ifMatch: '*', ifNoneMatch: '*' }, current),
        failed('If-None-Match'),
      )
      assert.deepEqual(
        evaluatePreconditions('PATCH', { ifMatch: current, ifNoneMatch: stale }, current),
        proceed,
      )
    })
  })
})

describe('writePrecondition', () => {
  it('is undefined without precondition fields', () => {
    assert.equal(writePrecondition({}), undefined)
    assert.equal(writePrecondition({ ifMatch: undefined, ifNoneMatch: undefined }), undefined)
  })

  it('compares If-Match strongly and If-None-Match weakly', () => {
    assert.deepEqual(writePrecondition({ ifMatch: 'W/"v3", "v4"' }), {
      match: { kind: 'versions', versions: [4] },
    })
    assert.deepEqual(writePrecondition({ ifNoneMatch: 'W/"v3", "v4"' }), {
      noneMatch: { kind: 'versions', versions: [3, 4] },
    })
    assert.deepEqual(writePrecondition({ ifMatch: '*', ifNoneMatch: '*' }), {
      match: { kind: 'any' },
      noneMatch: { kind: 'any' },
    })
  })
})

describe('failedField', () => {
  it('names the field whose condition the stored version fails, If-Match first', () => {
    assert.equal(failedField(undefined, 3), undefined)
    assert.equal(failedField({ match: { kind: 'versions', versions: [2] } }, 3), 'If-Match')
    assert.equal(failedField({ noneMatch: { kind: 'any' } }, 3), 'If-None-Match')
    assert.equal(failedField({ noneMatch: { kind: 'versions', versions: [3] } }, 3), 'If-None-Match')
    assert.equal(
      failedField({ match: { kind: 'versions', versions: [2] }, noneMatch: { kind: 'any' } }, 3),
      'If-Match',
    )
    assert.equal(
      failedField({ match: { kind: 'any' }, noneMatch: { kind: 'versions', versions: [2] } }, 3),
      undefined,
    )
  })

  it('agrees with evaluatePreconditions on every write for every stored version', () => {
    // Fields made of tags near the stored version, weak or strong, *, and malformed text.
    const tag = fc
      .tuple(fc.boolean(), fc.integer({ min: 1, max: 6 }))
      .map(([weak, v]) => `${weak ? 'W/' : ''}${versionEtag(v)}`)
    const field = fc.oneof(
      fc.constant(undefined),
      fc.constant('*'),
      fc.constant('v3'),
      fc.constant('"not-a-version"'),
      fc.array(tag, { minLength: 1, maxLength: 3 }).map((tags) => tags.join(', ')),
    )
    fc.assert(
      fc.property(
        fc.constantFrom('PUT', 'PATCH', 'DELETE'),
        field,
        field,
        fc.integer({ min: 1, max: 6 }),
        (method, ifMatch, ifNoneMatch, version) => {
          const fields: ConditionalFields = { ifMatch, ifNoneMatch }
          const evaluation = evaluatePreconditions(method, fields, versionEtag(version))
          const field = failedField(writePrecondition(fields), version)
          assert.equal(field, evaluation.outcome === 'precondition_failed' ? evaluation.field : undefined)
        },
      ),
    )
  })
})

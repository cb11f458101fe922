// The fields of a schema in words (src/contract/field-docs.ts), as the relation docs show them.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Type } from 'typebox'
import { describeFields, rulesOf } from '../../src/contract/field-docs.ts'
import { EventCreate } from '../../src/contract/schemas.ts'

describe('describeFields', () => {
  it('describes each property in order: type, required, rules, description', () => {
    assert.deepEqual(describeFields(EventCreate), [
      {
        name: 'title',
        type: 'string',
        required: true,
        rules: ['1–200 characters', 'not only whitespace'],
      },
      {
        name: 'date',
        type: 'string',
        required: true,
        rules: [
          'RFC 3339 date-time',
          'at most 64 characters',
          'a real date and time in years 0100–9999, no leap second, at most milliseconds',
        ],
        description:
          'RFC 3339 date-time, `Z` or an offset, at most milliseconds (further digits only zeros), in years 0100–9999 also in UTC; returned in UTC with a trailing Z',
      },
      { name: 'location_id', type: 'integer', required: true, rules: ['≥ 1', '≤ 9007199254740991'] },
    ])
  })

  it('marks optional and read-only fields and names array items', () => {
    const schema = Type.Object({
      tags: Type.Optional(Type.Array(Type.String(), { maxItems: 3 })),
      id: Type.Integer({ readOnly: true }),
    })
    assert.deepEqual(describeFields(schema), [
      { name: 'tags', type: 'array of strings', required: false, rules: ['at most 3 items'] },
      { name: 'id', type: 'integer', required: true, read_only: true, rules: [] },
    ])
  })

  it('words length, pattern and format rules, and has no fields for a non-object', () => {
    assert.deepEqual(rulesOf(Type.String({ minLength: 1 })), ['at least 1 character'])
    assert.deepEqual(rulesOf(Type.String({ pattern: '^a' })), ['matches /^a/'])
    assert.deepEqual(rulesOf(Type.String({ format: 'email' })), ['format email'])
    assert.deepEqual(describeFields(Type.String()), [])
  })
})

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { Compile } from 'typebox/compile'
import { checkImport } from '../../src/cli/import-file.ts'
import {
  importSchemaCommand,
  importSchemaDocument,
  importSchemaPath,
} from '../../src/contract/import-file.ts'

const root = new URL('../../', import.meta.url)
const readJson = (path: string) => JSON.parse(readFileSync(new URL(path, root), 'utf8'))

describe('the import format', () => {
  it(`is published as ${importSchemaPath}, exactly as the TypeBox schema generates it`, () => {
    assert.deepEqual(
      readJson(importSchemaPath),
      importSchemaDocument(),
      `${importSchemaPath} is out of date with src/contract/import-file.ts: run \`${importSchemaCommand}\` and commit the result`,
    )
  })

  it('is a draft 2020-12 JSON Schema with an $id, a title and a description', () => {
    const published = readJson(importSchemaPath)
    assert.equal(published.$schema, 'https://json-schema.org/draft/2020-12/schema')
    for (const key of ['$id', 'title', 'description']) assert.equal(typeof published[key], 'string', key)
  })

  it('accepts the sample file examples/events.json, judged by the published schema itself', () => {
    const sample = readJson('examples/events.json')
    // The committed JSON document, not the TypeBox object, so the file users get is what is tested.
    const published = Compile(readJson(importSchemaPath))
    assert.deepEqual(published.Errors(sample), [])
    const checked = checkImport(sample)
    assert.ok('locations' in checked, JSON.stringify(checked))
    assert.ok(checked.locations.length >= 3 && checked.events >= 15)
  })
})

describe('checkImport', () => {
  const event = { title: 'Open day', date: '2027-03-01T10:00:00+02:00' }
  const location = { name: 'Hall', address: '1 Road', events: [event] }

  it('converts dates to UTC epoch milliseconds with the API parser, and allows leaving out events', () => {
    const checked = checkImport({ locations: [location, { name: 'Empty', address: 'Nowhere' }] })
    assert.deepEqual(checked, {
      locations: [
        { name: 'Hall', address: '1 Road', events: [{ title: 'Open day', date: Date.UTC(2027, 2, 1, 8) }] },
        { name: 'Empty', address: 'Nowhere', events: [] },
      ],
      events: 1,
    })
  })

  it('accepts what the HTTP API accepts: lower-case t and z, millisecond precision, 300-character addresses', () => {
    const checked = checkImport({
      locations: [
        {
          name: 'ü'.repeat(200),
          address: 'a'.repeat(300),
          events: [{ title: '😀'.repeat(200), date: '2027-03-01t10:00:00.120z' }],
        },
      ],
    })
    assert.ok('locations' in checked, JSON.stringify(checked))
  })

  it('lists one problem per field, each with its JSON Pointer and the rule it breaks', () => {
    const checked = checkImport({
      locations: [
        location,
        {
          name: '',
          address: 'a'.repeat(301),
          extra: true,
          events: [
            { title: ' ', date: '2027-02-30T00:00:00Z' },
            { date: '2027-01-01T00:00:00.0001Z' },
            { title: 'Leap', date: '2027-06-30T23:59:60Z' },
            { title: 'nul \u0000', date: 'tomorrow' },
          ],
        },
        'not a location',
      ],
    })
    assert.deepEqual(checked, {
      problems: [
        '/locations/1/address: must be a string of 1–300 characters, not only whitespace',
        '/locations/1/events/0/date: is not a real calendar date and time',
        '/locations/1/events/0/title: must be a string of 1–200 characters, not only whitespace',
        '/locations/1/events/1/date: may carry at most millisecond precision',
        '/locations/1/events/1/title: is required',
        '/locations/1/events/2/date: is not a real calendar date and time',
        '/locations/1/events/3/date: must be an RFC 3339 date-time such as 2026-12-04T19:30:00Z',
        '/locations/1/events/3/title: contains the character U+0000, which cannot be stored',
        '/locations/1/extra: is not a field of the import format (see docs/import.schema.json)',
        '/locations/1/name: must be a string of 1–200 characters, not only whitespace',
        '/locations/2: must be an object',
      ],
    })
  })

  it('refuses names, addresses and titles made only of invisible format characters, as the HTTP API does', () => {
    const checked = checkImport({
      locations: [
        {
          name: '\u200b\u2060',
          address: '\ufeff\u200c',
          events: [{ title: '\u200d \u00ad', date: '2026-12-04T19:30:00Z' }],
        },
      ],
    })
    assert.ok('problems' in checked)
    assert.deepEqual(checked.problems.map((p) => p.split(':')[0]).sort(), [
      '/locations/0/address',
      '/locations/0/events/0/title',
      '/locations/0/name',
    ])
  })

  it('names the expected shape when the document is not an import file at all', () => {
    for (const document of [null, [], 'text', { events: [] }, { locations: {} }]) {
      assert.deepEqual(checkImport(document), { problems: ['expected an object with a "locations" array'] })
    }
  })

  it('reports at most 20 problems and says that more were left out', () => {
    const events = Array.from({ length: 1000 }, () => ({ title: '', date: 'never' }))
    const checked = checkImport({ locations: [{ name: 'Hall', address: '1 Road', events }] })
    assert.ok('problems' in checked)
    assert.equal(checked.problems.length, 21)
    assert.equal(
      checked.problems[0],
      '/locations/0/events/0/date: must be an RFC 3339 date-time such as 2026-12-04T19:30:00Z',
    )
    assert.equal(checked.problems[20], '… (further problems not shown)')
  })
})

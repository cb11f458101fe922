import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { documentSteps, missingLine } from '../docs/markdown-examples.ts'

const doc = [
  'Some text.',
  '```sh not-run',
  'npm start',
  '```',
  '```sh',
  'curl -i http://localhost:8080/ \\',
  "  -H 'Accept: x'",
  '# HTTP/1.1 200 OK',
  '',
  '# a note for the reader, not output',
  'echo done   # trailing comment',
  '```',
  '```http',
  'HTTP/1.1 200 OK',
  'etag: "…"',
  '',
  '{"a":1,',
  ' "b":[…]}',
  '```',
].join('\n')

describe('documentSteps', () => {
  it('runs sh blocks only, joins continuations, and takes the comments right below a command as its output', () => {
    const steps = documentSteps('X.md', doc)
    assert.deepEqual(
      steps.map((s) => [s.where, s.command]),
      [
        ['X.md:6', "curl -i http://localhost:8080/ \\\n  -H 'Accept: x'"],
        ['X.md:11', 'echo done   # trailing comment'],
      ],
    )
    assert.deepEqual(steps[0]?.expected, ['HTTP/1.1 200 OK'])
  })

  it('gives an http block after a sh block to its last command, the wrapped body joined', () => {
    assert.deepEqual(documentSteps('X.md', doc)[1]?.expected, [
      'HTTP/1.1 200 OK',
      'etag: "…"',
      '{"a":1,"b":[…]}',
    ])
  })
})

describe('missingLine', () => {
  const output =
    'HTTP/1.1 201 Created\r\nlocation: /events/33\r\netag: "v1"\r\n\r\n{"id":33,"title":"Launch"}'
  it('finds the expected lines in order, with … for any text', () => {
    assert.equal(missingLine(output, ['HTTP/1.1 201 Created', 'etag: "v1"', '{"id":33,…}']), undefined)
  })
  it('names the first line that is missing, out of order, or different', () => {
    assert.equal(missingLine(output, ['location: /events/34']), 'location: /events/34')
    assert.equal(missingLine(output, ['etag: "v1"', 'location: /events/33']), 'location: /events/33')
    assert.equal(missingLine(output, ['{"id":33}']), '{"id":33}')
  })
})

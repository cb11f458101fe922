import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { minimumNodeMajor, unsupportedNode } from '../../src/supported-node.ts'

describe('unsupportedNode', () => {
  it('accepts Node 22 and later, and the Node that runs the tests', () => {
    for (const version of ['22.0.0', '22.23.3', '24.21.0', '26.12.1'])
      assert.equal(unsupportedNode(version), undefined)
    assert.equal(unsupportedNode(), undefined)
    assert.equal(minimumNodeMajor, 22)
  })

  it('refuses Node 20 and 21 with a line that names the Node needed and how to get it', () => {
    for (const version of ['20.20.2', '21.7.3', '18.0.0']) {
      const reason = unsupportedNode(version)
      assert.match(reason ?? '', new RegExp(`Node.js ${version.replaceAll('.', '\\.')} is too old`))
      assert.match(reason ?? '', /Node\.js 22 or later/)
      assert.match(reason ?? '', /node_modules\/\.bin/)
    }
  })
})

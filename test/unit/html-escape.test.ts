// The one escaping of the HTML view (src/http/html/escape.ts): every interpolation is text unless
// it is markup the tag itself made.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { escapeHtml, html } from '../../src/http/html/escape.ts'

describe('html`…`', () => {
  it('escapes the five characters that could end text or an attribute value', () => {
    assert.equal(
      html`<p title="${`"'`}">${'<script>alert(1)</script> & more'}</p>`.toString(),
      '<p title="&quot;&#39;">&lt;script&gt;alert(1)&lt;/script&gt; &amp; more</p>',
    )
  })

  it('keeps nested html as markup, renders lists in order and leaves out nothing-values', () => {
    const items = ['a<', 'b>'].map((x) => html`<li>${x}</li>`)
    assert.equal(
      html`<ul>${items}</ul>${undefined}${null}${false}${0}`.toString(),
      '<ul><li>a&lt;</li><li>b&gt;</li></ul>0',
    )
  })

  it('never lets an interpolated string add a tag or an attribute (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const out = html`<a title="${text}">${text}</a>`.toString()
        assert.equal(out, `<a title="${escapeHtml(text)}">${escapeHtml(text)}</a>`)
        assert.doesNotMatch(escapeHtml(text), /[<>"']/)
      }),
    )
  })
})

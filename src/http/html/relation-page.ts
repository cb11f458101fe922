// The HTML view of a relation's documentation (http/relation-docs.ts): the prose, the target's media
// type and methods, and tables of its fields and of the bodies its requests take.
import type { FieldDoc } from '../../contract/field-docs.ts'
import type { RelationDoc } from '../relation-docs.ts'
import { html } from './escape.ts'
import { page, type UrlOf } from './layout.ts'

function fieldTable(caption: string, fields: readonly FieldDoc[], requirement: (field: FieldDoc) => string) {
  const rows = fields.map(
    (field) => html`<tr>
<th scope="row"><code>${field.name}</code></th>
<td>${field.type}</td>
<td>${field.rules.join('; ')}</td>
<td>${requirement(field)}</td>
<td>${field.description}</td>
</tr>`,
  )
  return html`<table>
<caption>${caption}</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Rules</th><th scope="col">Presence</th><th scope="col">Notes</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}

export function relationPage(url: UrlOf, doc: RelationDoc) {
  const requests = doc.requests.map(
    (request) => html`<h3>${request.method}</h3>
<p>Body as ${request.media_types.map((type, i) => [i > 0 && ' or ', html`<code>${type}</code>`])}${
      request.method === 'GET' || request.method === 'QUERY'
        ? ', or the same parameters in the query string.'
        : '.'
    }</p>
${fieldTable(`The ${request.method} request body`, request.fields, (f) => (f.required ? 'required' : 'optional'))}`,
  )
  const main = html`<h1>Link relation <code>${doc.rel}</code></h1>
<p>${doc.description}</p>
<dl>
<dt>Target media type</dt><dd><code>${doc.media_type}</code> (link type <code>${doc.type}</code>)</dd>
<dt>Methods</dt><dd>${doc.methods.join(', ')}</dd>
</dl>
<h2>Fields of the representation</h2>
${fieldTable(`Fields of ${doc.media_type}`, doc.fields, (f) =>
  [f.required ? 'always' : 'sometimes', f.read_only ? ', read-only' : ''].join(''),
)}
${doc.requests.length > 0 && html`<h2>Request bodies</h2>${requests}`}
<p>The same documentation as JSON: ask for <code>application/json</code> at <a href="${url(doc.rel)}">${doc.rel}</a>.</p>`
  return page(url, { title: `Relation ${doc.rel}`, path: doc.rel, main })
}

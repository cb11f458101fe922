// The HTML view of the entry point: where a person starts, with the links a client starts from.
import { entryPointLinks, paths } from '../links.ts'
import { html } from './escape.ts'
import { page, relationLabels, siteName, type UrlOf } from './layout.ts'

export function entryPage(url: UrlOf) {
  const items = entryPointLinks().map(
    ({ uri, rel }) =>
      html`<li><a href="${url(uri)}">${relationLabels[rel] ?? uri}</a> (rel ${
        rel.startsWith('/') ? html`<a href="${url(rel)}"><code>${rel}</code></a>` : html`<code>${rel}</code>`
      })</li>`,
  )
  const main = html`<h1>${siteName}</h1>
<p>Events and the locations where they take place. Every page here is also JSON: ask for
<code>application/json</code> (or send no Accept) at the same address.</p>
<ul>${items}</ul>`
  return page(url, { title: 'Start', path: paths.entryPoint, main })
}

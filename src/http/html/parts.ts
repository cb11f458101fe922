// Pieces several pages share: a resource's links as links to follow, and a collection's paging.
import type { Link } from '../../contract/schemas.ts'
import type { Page } from '../../domain/types.ts'
import type { QueryParameters } from '../links.ts'
import { html } from './escape.ts'
import type { UrlOf } from './layout.ts'

/** What a collection page's view shows. */
export interface CollectionView<T> {
  readonly page: Page
  readonly total: number
  readonly items: readonly T[]
  /** The selection (filter) as query parameters, as the Link field carries them. */
  readonly parameters: QueryParameters
}

/** Links as the JSON carries them: the target to follow, each relation (its documentation when it has one), the type. */
export function linkList(url: UrlOf, links: readonly Link[]) {
  const items = links.map(({ uri, rel, type }) => {
    const names = rel.split(' ').map((name) =>
      // The service's own relations are URIs that document themselves (routes/relations.ts).
      name.startsWith('/')
        ? html`<a href="${url(name)}"><code>${name}</code></a>`
        : html`<code>${name}</code>`,
    )
    return html`<li><a href="${url(uri)}">${uri}</a>: rel ${names.map((n, i) => [i > 0 && ' ', n])}, type <code>${type}+json</code></li>`
  })
  return html`<ul>${items}</ul>`
}

const pageLabels: Record<string, string> = {
  first: 'First page',
  prev: 'Previous page',
  next: 'Next page',
  last: 'Last page',
}

/** first, prev, next, last: the same pages, and the same URIs, as the Link field's. */
export function pageLinks(
  url: UrlOf,
  relations: readonly { rel: string; page: number }[],
  pagePath: (page: number) => string,
) {
  const items = relations.map(
    ({ rel, page }) =>
      html`<li><a rel="${rel}" href="${url(pagePath(page))}">${pageLabels[rel] ?? rel} (${page})</a></li>`,
  )
  return html`<nav class="pages" aria-label="Pages"><ul>${items}</ul></nav>`
}

// The frame every HTML page shares: language, title, the landmarks (header, nav, main), a skip
// link, the stylesheet, and the forms' script on pages that have forms.
import { entryPointLinks } from '../links.ts'
import { assets } from './assets.ts'
import { html, type Interpolation } from './escape.ts'

/** Public URL of a path relative to the base URL (request.externalUrl): right behind a proxy too. */
export type UrlOf = (path: string) => string

export interface PageContent {
  readonly title: string
  /** The path of the page, to mark where the person is in the navigation. */
  readonly path: string
  readonly main: Interpolation
  /** Whether the page has write forms, which need the script. */
  readonly forms?: boolean
}

/** What the entry point's relations are called for a person. */
export const relationLabels: Record<string, string> = {
  '/rel/events': 'Events',
  '/rel/locations': 'Locations',
  'service-doc': 'API reference',
  'service-desc': 'OpenAPI description',
}

export const siteName = 'Event Resource Service'

export function page(url: UrlOf, { title, path, main, forms = false }: PageContent) {
  const navigation = entryPointLinks().map(({ uri, rel }) => {
    const current = path === uri || path.startsWith(`${uri}/`)
    const label = relationLabels[rel] ?? rel
    return html`<li><a href="${url(uri)}"${current && html` aria-current="page"`}>${label}</a></li>`
  })
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} — ${siteName}</title>
<link rel="stylesheet" href="${url(assets.style.path)}">
<link rel="icon" type="image/svg+xml" href="${url(assets.icon.path)}">
${forms && html`<script src="${url(assets.forms.path)}" defer></script>`}
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header>
<p class="brand"><a href="${url('/')}">${siteName}</a></p>
<nav aria-label="Main"><ul>${navigation}</ul></nav>
</header>
<main id="main" tabindex="-1">
${main}
</main>
</body>
</html>
`
}

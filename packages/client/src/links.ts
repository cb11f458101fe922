// Following links: a relation is one of the space-separated tokens of a link's `rel` (RFC 8288
// §3.3), and a `uri` is a path relative to the base URL (CONTRACT.md §2), appended to it with its
// path prefix, not resolved by RFC 3986 (which would drop the prefix). Absolute URLs, as Link and
// Location carry behind a trusted proxy, are taken as they are.
import type { Link } from './contract/representations.ts'

/** The base URL without a trailing slash, so that `/events` appends to its prefix. */
export function normaliseBase(baseUrl: string | URL): URL {
  const url = new URL(baseUrl)
  url.pathname = url.pathname.replace(/\/+$/, '')
  url.search = ''
  url.hash = ''
  return url
}

/** The absolute URL of `uri` (a path relative to the base URL, or an absolute URL). */
export function resolveUri(base: URL, uri: string): URL {
  if (/^[a-z][a-z0-9+.-]*:/i.test(uri)) return new URL(uri)
  if (!uri.startsWith('/')) throw new TypeError(`not a path relative to the base URL: ${uri}`)
  const prefix = base.pathname === '/' ? '' : base.pathname
  return new URL(`${base.origin}${prefix}${uri}`)
}

export const hasRel = (link: Pick<Link, 'rel'>, rel: string): boolean => link.rel.split(/\s+/).includes(rel)

/** The first link of `links` with relation `rel`. */
export function findLink<L extends Pick<Link, 'rel'>>(links: readonly L[], rel: string): L | undefined {
  return links.find((link) => hasRel(link, rel))
}

/** The links of an RFC 8288 Link field, as `{uri, rel}` (other parameters are not needed here). */
export function parseLinkHeader(field: string | string[] | undefined): { uri: string; rel: string }[] {
  const text = Array.isArray(field) ? field.join(', ') : (field ?? '')
  const links: { uri: string; rel: string }[] = []
  // <uri> followed by parameters up to the next link; a URI cannot contain `>` (RFC 3986).
  for (const match of text.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))/i.exec(match[2] ?? '')
    if (rel) links.push({ uri: match[1] ?? '', rel: rel[1] ?? rel[2] ?? '' })
  }
  return links
}

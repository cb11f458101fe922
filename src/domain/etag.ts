// Entity tags (RFC 9110 §8.8.3) and the conditional-request comparisons of §13.1.
import { createHash } from 'node:crypto'
import type { Precondition } from './types.ts'

/** Strong ETag of a stored resource, made from its version number. */
export function versionEtag(version: number): string {
  return `"v${version}"`
}

/** Strong ETag of a computed representation (a collection page), made from its bytes. */
export function contentEtag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
}

// entity-tag = [ weak ] opaque-tag; opaque-tag = DQUOTE *etagc DQUOTE
const entityTag = /(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/y
// RFC 9110 §5.6.1.2: empty list elements are ignored. Commas are legal inside a tag, so the field
// is read tag by tag rather than split.
const separators = /[\s,]*/y

/** Parses an If-Match / If-None-Match field: `*`, or a list of tags (undefined when malformed). */
export function parseEtagList(field: string): '*' | { weak: boolean; tag: string }[] | undefined {
  if (field.trim() === '*') return '*'
  const tags: { weak: boolean; tag: string }[] = []
  let at = 0
  for (;;) {
    separators.lastIndex = at
    const gap = separators.exec(field)?.[0] ?? ''
    at = separators.lastIndex
    if (at >= field.length) return tags
    // Two tags need a comma between them.
    if (tags.length > 0 && !gap.includes(',')) return undefined
    entityTag.lastIndex = at
    const m = entityTag.exec(field)
    if (!m) return undefined
    tags.push({ weak: m[1] !== undefined, tag: m[2] as string })
    at = entityTag.lastIndex
  }
}

/** If-None-Match uses the weak comparison (§13.1.2). */
export function noneMatch(field: string, current: string): boolean {
  const list = parseEtagList(field)
  if (list === '*') return false
  if (list === undefined) return true
  return !list.some((t) => t.tag === current)
}

/**
 * If-Match uses the strong comparison (§13.1.1): weak tags never match. Returns the precondition
 * for the store to check atomically with the write.
 */
export function ifMatchPrecondition(field: string): Precondition {
  const list = parseEtagList(field)
  if (list === '*') return { kind: 'any' }
  const versions = (list ?? [])
    .filter((t) => !t.weak)
    .map((t) => /^"v([1-9]\d{0,15})"$/.exec(t.tag)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number)
  return { kind: 'versions', versions }
}

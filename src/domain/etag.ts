// Entity tags (RFC 9110 §8.8.3) and the conditional-request comparisons of §13.1.
import { createHash } from 'node:crypto'
import type { VersionSet } from './types.ts'

/** Strong ETag of a stored resource, made from its version number. */
export function versionEtag(version: number): string {
  return `"v${version}"`
}

/** Strong ETag of a computed representation (a collection page), made from its bytes. */
export function contentEtag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
}

/**
 * The strong ETag of a representation in a content coding (`br`, `gzip`; http/compression.ts): the
 * identity tag with `+<coding>` inside its quotes. RFC 9110 §8.8.3 wants a distinct tag per coding;
 * `+` occurs in no identity tag (versionEtag, contentEtag's base64url), so the two never collide.
 */
export function codedEtag(etag: string, coding: string): string {
  return `${etag.slice(0, -1)}+${coding}"`
}

/** A coded tag names the same state of the resource as its identity tag: it is compared as that. */
const identityTag = (tag: string) => {
  const plus = tag.lastIndexOf('+')
  return plus < 0 ? tag : `${tag.slice(0, plus)}"`
}

export interface EntityTag {
  readonly weak: boolean
  /** The opaque tag, quotes included. */
  readonly tag: string
}

// entity-tag = [ weak ] opaque-tag; opaque-tag = DQUOTE *etagc DQUOTE
const entityTag = /(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/y
// RFC 9110 §5.6.1.2: empty list elements are ignored. Commas are legal inside a tag, so the field
// is read tag by tag rather than split.
const separators = /[\s,]*/y

/** Parses an If-Match / If-None-Match field: `*`, or a list of tags (undefined when malformed). */
export function parseEtagList(field: string): '*' | EntityTag[] | undefined {
  if (field.trim() === '*') return '*'
  const tags: EntityTag[] = []
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

// A field that does not parse names no entity tag: If-Match then matches nothing (the write is
// refused, never made unconditionally) and If-None-Match excludes nothing. `*` mixed with tags
// is malformed too (RFC 9110 §13.1.1: `"*" / #entity-tag`).
const tagsOf = (field: string): '*' | readonly EntityTag[] => {
  const tags = parseEtagList(field) ?? []
  return tags === '*' ? tags : tags.map((t) => ({ weak: t.weak, tag: identityTag(t.tag) }))
}

/**
 * RFC 9110 §13.1.1: If-Match holds when it is `*` and a current representation exists, or when a
 * listed tag matches the current one by the strong comparison (§8.8.3.2: neither is weak and the
 * opaque tags are equal), so a weak tag never matches. `current` is the strong ETag of the
 * selected representation, undefined when there is none.
 */
export function ifMatchHolds(field: string, current: string | undefined): boolean {
  if (current === undefined) return false
  const tags = tagsOf(field)
  return tags === '*' || tags.some((t) => !t.weak && t.tag === current)
}

/**
 * RFC 9110 §13.1.2: If-None-Match is false when it is `*` and a current representation exists, or
 * when a listed tag matches the current one by the weak comparison (equal opaque tags, weak or
 * not); true otherwise.
 */
export function ifNoneMatchHolds(field: string, current: string | undefined): boolean {
  if (current === undefined) return true
  // A revalidating cache sends the one tag it holds: the commonest field, decided without parsing.
  if (field === current) return false
  const tags = tagsOf(field)
  return tags !== '*' && !tags.some((t) => t.tag === current)
}

const versionTag = /^"v([1-9]\d{0,15})"$/

/**
 * The stored versions a field names, for the store to compare in the statement that writes:
 * If-Match compares strongly, so its weak tags name nothing; If-None-Match compares weakly. Tags
 * that are not version tags of this service (versionEtag) can never match a stored resource.
 */
export function versionSet(field: string, comparison: 'strong' | 'weak'): VersionSet {
  const tags = tagsOf(field)
  if (tags === '*') return { kind: 'any' }
  const versions = tags
    .filter((t) => comparison === 'weak' || !t.weak)
    .map((t) => versionTag.exec(t.tag)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number)
  return { kind: 'versions', versions }
}

// Paging rules (CONTRACT.md §3): page ≥ 1 (default 1), per_page 1–max (default 20), events in
// date order then id; a page past the end is empty but keeps the true total.
import { DomainError, echo } from './errors.ts'
import { agreeing, plainInteger } from './parameters.ts'
import type { Page } from './types.ts'

export const defaultPage: Page = { page: 1, perPage: 20 }

/**
 * The highest page number taken. Any page past the end is an empty page, but the offset it makes,
 * (page - 1) × per_page, must stay an exact integer that both databases take: with MAX_PER_PAGE at
 * most 10,000 it stays below 10^13 (a page of 2^53 − 1 made offsets no double holds exactly, and
 * past 2^63 PostgreSQL's bigint).
 */
export const maxPage = 1_000_000_000

export type PagingInput = { page?: unknown; per_page?: unknown }

/**
 * Combines the paging parameters of the body and of the query string. Either may be absent;
 * a parameter given in both must agree. Query values are strings and must be plain integers.
 * The query string may carry nothing but paging and the `otherParameters` a resource also takes.
 */
export function resolvePage(
  body: PagingInput | undefined,
  query: Record<string, unknown>,
  maxPerPage: number,
  otherParameters: readonly string[] = [],
): Page {
  for (const key of Object.keys(query)) {
    if (key !== 'page' && key !== 'per_page' && !otherParameters.includes(key)) {
      throw badPaging(`unknown query parameter "${echo(key)}"`)
    }
  }
  const pick = (key: 'page' | 'per_page'): number | undefined => {
    const fromBody = body?.[key]
    const fromQuery = query[key] === undefined ? undefined : integerParameter(key, query[key])
    if (fromBody !== undefined && typeof fromBody !== 'number') throw badPaging(`${key} must be an integer`)
    return agreeing(key, fromBody, fromQuery, badPaging)
  }
  const page = pick('page') ?? defaultPage.page
  const perPage = pick('per_page') ?? Math.min(defaultPage.perPage, maxPerPage)
  if (!Number.isSafeInteger(page) || page < 1 || page > maxPage) {
    throw badPaging(`page must be an integer from 1 to ${maxPage}`)
  }
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > maxPerPage) {
    throw badPaging(`per_page must be an integer from 1 to ${maxPerPage}`)
  }
  return { page, perPage }
}

function integerParameter(key: string, value: unknown): number {
  const integer = plainInteger(value)
  if (integer === undefined) throw badPaging(`${key} must be written as a plain integer`)
  return integer
}

const badPaging = (message: string) => new DomainError('bad_paging', message)

export function lastPage(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage))
}

export function offsetOf({ page, perPage }: Page): number {
  return (page - 1) * perPage
}

/** The RFC 8288 relations of a page, each with the page number it points to. */
export function pageRelations({ page, perPage }: Page, total: number): { rel: string; page: number }[] {
  const last = lastPage(total, perPage)
  const relations = [{ rel: 'first', page: 1 }]
  if (page > 1) relations.push({ rel: 'prev', page: Math.min(page - 1, last) })
  if (page < last) relations.push({ rel: 'next', page: page + 1 })
  relations.push({ rel: 'last', page: last })
  return relations
}

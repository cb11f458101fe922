// A paged collection (/events, /locations): the same paging rules (domain/paging.ts), a Link
// field per page, and an ETag per page, whatever the collection holds and however it is chosen.
import type { FastifySchema } from 'fastify'
import { mediaTypes } from '../contract/media-types.ts'
import type { PagingBody } from '../contract/schemas.ts'
import { contentEtag } from '../domain/etag.ts'
import { resolvePage } from '../domain/paging.ts'
import type { Page } from '../domain/types.ts'
import { notModified } from './conditional.ts'
import type { Html } from './html/escape.ts'
import type { UrlOf } from './html/layout.ts'
import type { CollectionView } from './html/parts.ts'
import { htmlBody } from './html/send.ts'
import { pageLinkHeader, type QueryParameters } from './links.ts'
import type { Body, Operation } from './resource.ts'

/**
 * Parameters beside page and per_page that choose which items the collection shows (the events'
 * filter), from the body or the query string.
 */
export interface Selection<S> {
  readonly names: readonly string[]
  /** Reads and checks them; throws a DomainError on bad input. */
  resolve(body: unknown, query: Record<string, unknown>): S
  /** They as query parameters, in the order the Link field writes them; none when nothing is chosen. */
  query(selection: S): QueryParameters
}

export interface PagedCollection<T, S> {
  /** Its path, which the Link field's pages extend. */
  readonly path: string
  /** What it holds, in the plural, for the 412's detail. */
  readonly what: string
  /** The response media types, the collection's own first; and its paging body's. */
  readonly produces: readonly string[]
  readonly consumes: readonly string[]
  readonly schema: FastifySchema
  readonly maxPerPage: number
  /** Absent where every item is always shown. */
  readonly selection?: Selection<S>
  /** `selection` is undefined for the whole collection. */
  read(page: Page, selection: S | undefined): Promise<{ total: number; items: readonly T[] }>
  represent(total: number, items: readonly T[]): Body
  /**
   * The HTML view of a page, offered last (after `produces`); absent where there is none. It may
   * read more (the names of the events' locations), as a few calls for the whole page.
   */
  html?(url: UrlOf, view: CollectionView<T>): Html | Promise<Html>
}

/**
 * The ETag of one page: each page is a representation of its own. A selection is part of it, so
 * that two selections sent as bodies to one URL never share a tag (an If-None-Match from one would
 * answer 304 to the other); without one the tag is what it always was.
 */
export function pageEtag(
  page: Page,
  total: number,
  items: readonly { id: number; version: number }[],
  selection: QueryParameters = [],
): string {
  const shown = items.map((e) => [e.id, e.version])
  return contentEtag(
    JSON.stringify(
      selection.length > 0 ? [total, page, Object.fromEntries(selection), shown] : [total, page, shown],
    ),
  )
}

/**
 * The read of a paged collection (GET, and QUERY where offered), and the ETag of the collection's
 * own representation, what a read without parameters answers: its default page (for preconditions
 * on a POST to it).
 */
export function pagedCollection<T extends { id: number; version: number }, S = never>(
  collection: PagedCollection<T, S>,
): { list: Operation; currentEtag: () => Promise<string> } {
  const { selection, html } = collection
  const list: Operation = {
    produces: html ? [...collection.produces, mediaTypes.html] : collection.produces,
    consumes: collection.consumes,
    validationStatus: 400,
    etag: true,
    paged: true,
    schema: collection.schema,
    async handler(request, reply) {
      const body = request.body as PagingBody | undefined
      const query = request.query as Record<string, unknown>
      const page = resolvePage(body, query, collection.maxPerPage, selection?.names)
      const chosen = selection?.resolve(body, query)
      const parameters = chosen === undefined ? [] : (selection?.query(chosen) ?? [])
      const { total, items } = await collection.read(page, chosen)
      if (html && request.representation === mediaTypes.html) {
        const view = await html((path) => request.externalUrl(path), { page, total, items, parameters })
        return htmlBody(request, reply, view, `this page of ${collection.what}`, {
          link: pageLinkHeader(page, total, collection.path, parameters),
        })
      }
      const etag = pageEtag(page, total, items, parameters)
      const unchanged = notModified(request, reply, etag, `this page of ${collection.what}`)
      reply.header('link', pageLinkHeader(page, total, collection.path, parameters))
      if (unchanged) {
        reply.code(304)
        return undefined
      }
      reply.type(request.representation ?? (collection.produces[0] as string))
      return collection.represent(total, items)
    },
  }
  const currentEtag = async () => {
    const page = resolvePage(undefined, {}, collection.maxPerPage)
    const { total, items } = await collection.read(page, undefined)
    return pageEtag(page, total, items)
  }
  return { list, currentEtag }
}

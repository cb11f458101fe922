// A paged collection (/events, /locations): the same paging rules (domain/paging.ts), a Link
// field per page, and an ETag per page, whatever the collection holds.
import type { FastifySchema } from 'fastify'
import type { PagingBody } from '../contract/schemas.ts'
import { contentEtag } from '../domain/etag.ts'
import { resolvePage } from '../domain/paging.ts'
import type { Page } from '../domain/types.ts'
import { notModified } from './conditional.ts'
import { pageLinkHeader } from './links.ts'
import type { Operation } from './resource.ts'

export interface PagedCollection<T> {
  /** Its path, which the Link field's pages extend. */
  readonly path: string
  /** What it holds, in the plural, for the 412's detail. */
  readonly what: string
  /** The response media types, the collection's own first; and its paging body's. */
  readonly produces: readonly string[]
  readonly consumes: readonly string[]
  readonly schema: FastifySchema
  readonly maxPerPage: number
  read(page: Page): Promise<{ total: number; items: readonly T[] }>
  represent(total: number, items: readonly T[]): unknown
}

/** The ETag of one page: each page is a representation of its own. */
export function pageEtag(
  page: Page,
  total: number,
  items: readonly { id: number; version: number }[],
): string {
  return contentEtag(JSON.stringify([total, page, items.map((e) => [e.id, e.version])]))
}

/**
 * The read of a paged collection (GET, and QUERY where offered), and the ETag of the collection's
 * own representation, what a read without parameters answers: its default page (for preconditions
 * on a POST to it).
 */
export function pagedCollection<T extends { id: number; version: number }>(
  collection: PagedCollection<T>,
): { list: Operation; currentEtag: () => Promise<string> } {
  const list: Operation = {
    produces: collection.produces,
    consumes: collection.consumes,
    validationStatus: 400,
    schema: collection.schema,
    async handler(request, reply) {
      const page = resolvePage(
        request.body as PagingBody | undefined,
        request.query as Record<string, unknown>,
        collection.maxPerPage,
      )
      const { total, items } = await collection.read(page)
      const unchanged = notModified(
        request,
        reply,
        pageEtag(page, total, items),
        `this page of ${collection.what}`,
      )
      reply.header('link', pageLinkHeader(page, total, collection.path))
      if (unchanged) return reply.code(304).send()
      return reply
        .type(request.representation ?? (collection.produces[0] as string))
        .send(collection.represent(total, items))
    },
  }
  const currentEtag = async () => {
    const page = resolvePage(undefined, {}, collection.maxPerPage)
    const { total, items } = await collection.read(page)
    return pageEtag(page, total, items)
  }
  return { list, currentEtag }
}

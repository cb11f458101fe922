// A kind of resource of the service (events, locations) as the client sees it: read one, page
// through the collection by its Link field, create, and write back with If-Match the ETag of the
// representation as it was read. URLs come from links: the collection's from the entry point, an
// item's writes from its own `edit` link; only an item read by id is `<collection>/<id>`
// (CONTRACT.md §3).
import { mediaTypes } from './contract/media-types.ts'
import type { Link } from './contract/representations.ts'
import { ClientError } from './errors.ts'
import { findLink, parseLinkHeader } from './links.ts'
import type { Session } from './session.ts'
import { type Answer, send } from './transport.ts'

/** Query parameters as the caller writes them, camelCase, from the wire's snake_case names. */
export type CamelCase<S extends string> = S extends `${infer A}_${infer B}`
  ? `${A}${Capitalize<CamelCase<B>>}`
  : S
export type Camelized<T> = { [K in keyof T as CamelCase<K & string>]: T[K] }

/** A representation with links, as every item of the service is. */
export interface Item {
  readonly links: readonly Link[]
  readonly id: number
}

/** RFC 8288 relations of a page in the Link field (CONTRACT.md §2). */
export type PageRelation = 'first' | 'prev' | 'next' | 'last'

export interface Page<T, C> {
  /** The collection page exactly as the service sent it. */
  readonly representation: C
  readonly total: number
  readonly items: readonly T[]
  readonly etag: string | undefined
  /** The other pages, from the Link field. */
  readonly links: Readonly<Partial<Record<PageRelation, URL>>>
}

export interface WriteOptions {
  /**
   * The ETag to send as If-Match; by default the one of the representation as read. `*` writes
   * whatever the current state (only when it exists).
   */
  readonly etag?: string
}

export interface CreateOptions {
  /**
   * POST /events: a retry with the same key and body within 24 h gets the first answer and
   * creates nothing (CONTRACT.md §3), so a create whose answer was lost can be sent again.
   */
  readonly idempotencyKey?: string
}

export interface Kind {
  /** Relation of the collection in the entry point. */
  readonly collectionRel: string
  /** The member of the collection representation that holds the items. */
  readonly itemsField: string
  readonly collectionType: string
  readonly itemType: string
  /** In messages: "event". */
  readonly noun: string
}

export class Resource<T extends Item, C, Create, Replace, Patch, Query> {
  constructor(
    protected readonly session: Session,
    protected readonly kind: Kind,
  ) {}

  /** The item with this id. */
  async get(id: number): Promise<T> {
    if (!Number.isSafeInteger(id) || id < 1) throw new RangeError(`not an ${this.kind.noun} id: ${id}`)
    const collection = await this.collectionUrl()
    const url = new URL(collection)
    url.pathname = `${collection.pathname}/${id}`
    return this.read(url)
  }

  /** The item a link points at (a `uri` of a representation). */
  follow(uri: string): Promise<T> {
    return this.read(this.session.resolve(uri))
  }

  /** One page of the collection; the parameters travel as a JSON body, the contract's documented form. */
  async list(query: Query = {} as Query): Promise<Page<T, C>> {
    const body = wireNames(query as Record<string, unknown>)
    const url = await this.collectionUrl()
    return this.readPage(url, Object.keys(body).length > 0 ? body : undefined)
  }

  /** The page a Link of another page points at, or undefined when that page has no such link. */
  async page(from: Page<T, C>, rel: PageRelation): Promise<Page<T, C> | undefined> {
    const url = from.links[rel]
    return url && this.readPage(url)
  }

  /**
   * Every item the query finds, page by page (`perPage` each, 100 at most), following `next` in
   * the Link field. Items created or deleted meanwhile can shift pages: an item may then be seen
   * twice or not at all, as with any paging by position.
   */
  async *all(query: Query = {} as Query): AsyncGenerator<T, void, undefined> {
    const url = await this.collectionUrl()
    for (const [name, value] of Object.entries(wireNames(query as Record<string, unknown>))) {
      url.searchParams.set(name, String(value))
    }
    let next: URL | undefined = url
    while (next) {
      const page: Page<T, C> = await this.readPage(next)
      yield* page.items
      next = page.items.length > 0 ? page.links.next : undefined
    }
  }

  async create(body: Create, options: CreateOptions = {}): Promise<T> {
    const url = await this.collectionUrl()
    const answer = await send(
      this.session.transport,
      {
        method: 'POST',
        url,
        accept: this.kind.itemType,
        body: { contentType: mediaTypes.json, value: body },
        ...(options.idempotencyKey !== undefined && {
          headers: { 'idempotency-key': JSON.stringify(options.idempotencyKey) },
        }),
      },
      [this.kind.itemType],
    )
    return this.remember(answer)
  }

  /** PUT: the item as read with `fields` over it, with If-Match its ETag. */
  async replace(item: T, fields: Partial<Replace> = {}, options: WriteOptions = {}): Promise<T> {
    const answer = await this.write(
      item,
      'PUT',
      { contentType: mediaTypes.json, value: { ...item, ...fields } },
      options,
    )
    return this.remember(answer)
  }

  /** PATCH with a JSON merge patch (RFC 7396), with If-Match the item's ETag. */
  async patch(item: T, patch: Patch, options: WriteOptions = {}): Promise<T> {
    const answer = await this.write(
      item,
      'PATCH',
      { contentType: mediaTypes.mergePatch, value: patch },
      options,
    )
    return this.remember(answer)
  }

  /** DELETE, with If-Match the item's ETag. */
  async delete(item: T, options: WriteOptions = {}): Promise<void> {
    await this.write(item, 'DELETE', undefined, options)
  }

  /** The ETag of a representation this client read or wrote, if it knows one. */
  etagOf(item: T): string | undefined {
    return this.session.etags.get(item)
  }

  protected collectionUrl(signal?: AbortSignal): Promise<URL> {
    return this.session.entryLink(this.kind.collectionRel, signal)
  }

  protected async read(url: URL): Promise<T> {
    const answer = await send(this.session.transport, { method: 'GET', url, accept: this.kind.itemType }, [
      this.kind.itemType,
      mediaTypes.json,
    ])
    return this.remember(answer)
  }

  protected async readPage(url: URL, body?: Record<string, unknown>): Promise<Page<T, C>> {
    const answer = await send(
      this.session.transport,
      {
        method: 'GET',
        url,
        accept: this.kind.collectionType,
        ...(body && { body: { contentType: mediaTypes.json, value: body } }),
      },
      [this.kind.collectionType, mediaTypes.json],
    )
    const representation = answer.json as C & { total: number }
    const links: Partial<Record<PageRelation, URL>> = {}
    for (const { uri, rel } of parseLinkHeader(answer.headers.link)) {
      for (const token of rel.split(/\s+/)) {
        if (['first', 'prev', 'next', 'last'].includes(token))
          links[token as PageRelation] ??= this.session.resolve(uri)
      }
    }
    return {
      representation,
      total: representation.total,
      items: (representation as Record<string, unknown>)[this.kind.itemsField] as T[],
      etag: answer.header('etag'),
      links,
    }
  }

  private async write(
    item: T,
    method: string,
    body: { contentType: string; value: unknown } | undefined,
    options: WriteOptions,
  ): Promise<Answer> {
    const edit = findLink(item.links, 'edit')
    if (!edit) throw new ClientError(`${this.kind.noun} ${item.id} has no edit link`)
    const url = this.session.resolve(edit.uri)
    const etag = options.etag ?? this.session.etags.get(item)
    // Never an unconditional write by accident: a change made since the read must not be lost.
    if (etag === undefined) {
      throw new ClientError(
        `no ETag is known for ${this.kind.noun} ${item.id}: read it with get() first, or pass { etag }`,
      )
    }
    return send(
      this.session.transport,
      { method, url, accept: this.kind.itemType, headers: { 'if-match': etag }, ...(body && { body }) },
      [this.kind.itemType],
    )
  }

  private remember(answer: Answer): T {
    const item = answer.json as T
    const etag = answer.header('etag')
    if (etag !== undefined && typeof item === 'object' && item !== null) this.session.etags.set(item, etag)
    return item
  }
}

/** `{ perPage: 5, locationId: 3 }` → `{ per_page: 5, location_id: 3 }`, leaving out undefined values. */
export function wireNames(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]),
  )
}

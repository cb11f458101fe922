// What the OpenAPI document states of the running service's settings: per_page's maximum and the
// longest header field, as config.ts has them, and the request header fields operations take.
import type { Json } from './openapi-parts.ts'

/** Limits that are settings (config.ts), stated as the running service has them. */
export interface DocumentLimits {
  /** MAX_PER_PAGE: per_page's maximum, and the most items a page holds. */
  readonly maxPerPage: number
  /** MAX_HEADER_SIZE: no header field can be longer than the whole header section. */
  readonly maxHeaderSize: number
}

export const defaultLimits: DocumentLimits = { maxPerPage: 100, maxHeaderSize: 16 * 1024 }

/**
 * The schemas bound per_page and a page's items by the largest MAX_PER_PAGE (contract/schemas.ts);
 * the document states the running service's setting: per_page's maximum wherever it is (a body's
 * field, a query parameter), and the most items of a page.
 */
export function withConfiguredLimits<T>(value: T, limits: Pick<DocumentLimits, 'maxPerPage'>, key = ''): T {
  const { maxPerPage } = limits
  if (Array.isArray(value)) return value.map((v) => withConfiguredLimits(v, { maxPerPage })) as T
  if (typeof value !== 'object' || value === null) return value
  const copy = Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, withConfiguredLimits(v, { maxPerPage }, k)]),
  ) as Json
  if (copy.name === 'per_page' && copy.in === 'query')
    copy.schema = perPageAt(copy.schema as Json, maxPerPage)
  if (key === 'properties' && copy.per_page) copy.per_page = perPageAt(copy.per_page as Json, maxPerPage)
  if (key === 'properties') {
    for (const items of ['events', 'locations']) {
      const list = copy[items] as Json | undefined
      if (list?.type === 'array') copy[items] = { ...list, maxItems: maxPerPage }
    }
  }
  return copy as T
}

const perPageAt = (schema: Json, maxPerPage: number): Json => ({
  ...schema,
  maximum: maxPerPage,
  description: `default ${Math.min(20, maxPerPage)}, at most ${maxPerPage} (MAX_PER_PAGE)`,
})

/**
 * The request fields operations take. If-Match and If-None-Match have no limit of their own: the
 * whole header section is (MAX_HEADER_SIZE, 431 beyond), so no field can be longer.
 */
export const headerParameters = ({ maxHeaderSize }: DocumentLimits): Record<string, Json> => ({
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description: 'A request id to log and echo; kept when short and plain ([A-Za-z0-9._:-]{1,128}).',
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'ETags of a copy the client holds: a read answers 304 when one is current; a write 412.',
    schema: { type: 'string', maxLength: maxHeaderSize },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'ETags the representation must still have (or `*`), else 412: two clients PUT with the same If-Match, exactly one wins.',
    schema: { type: 'string', maxLength: maxHeaderSize },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A retry with the same key and body within 24 h answers the first response again and creates nothing; the same key with another body is 422.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  },
  LastEventId: {
    name: 'Last-Event-ID',
    in: 'header',
    required: false,
    description:
      'The change feed (Accept: text/event-stream) resumes after this change number, or sends `reset` when changes after it are no longer kept.',
    schema: { type: 'string', maxLength: 16, pattern: '^(0|[1-9][0-9]{0,15})$' },
  },
})

// The OpenAPI 3.1 document, made from the route table (http/resource.ts) and the contract's
// schemas, never written by hand: each operation's statuses, fields and media types follow from
// its traits (write, produces, consumes, etag, paged, created…), so the document cannot drift from
// what is served. Pure: the same table always gives the same document.
import { mediaTypes } from '../contract/media-types.ts'
import { maxId, Problem } from '../contract/schemas.ts'
import {
  type Json,
  namedSchemas,
  problemResponse,
  responseHeaders,
  securitySchemes,
  sharedResponses,
} from './openapi-parts.ts'
import {
  acceptHeaders,
  allowedMethods,
  type Method,
  type Operation,
  type Resource,
  type RouteEntry,
} from './resource.ts'

export interface DocumentInfo {
  readonly title: string
  readonly version: string
  readonly description: string
}

/** Limits that are settings (config.ts), stated as the running service has them. */
export interface DocumentLimits {
  /** MAX_PER_PAGE: per_page's maximum, and the most items a page holds. */
  readonly maxPerPage: number
  /** MAX_HEADER_SIZE: no header field can be longer than the whole header section. */
  readonly maxHeaderSize: number
}

export const defaultLimits: DocumentLimits = { maxPerPage: 100, maxHeaderSize: 16 * 1024 }

/** Fastify's `/events/:id` as an OpenAPI path template, `/events/{id}`. */
export const pathTemplate = (url: string): string => url.replace(/:(\w+)/g, '{$1}')

/**
 * The document: every resource of `routes` with its operations (HEAD beside each GET, OPTIONS on
 * each, QUERY as the `x-query` extension), and `extraPaths`, path items served by something other
 * than the route table (the reference page).
 */
export function openApiDocument(
  routes: readonly RouteEntry[],
  info: DocumentInfo,
  extraPaths: Record<string, Json> = {},
  limits: DocumentLimits = defaultLimits,
): Json {
  const used = new Map<string, unknown>()
  const schemaOf = (schema: unknown): unknown => referencing(schema, used)
  // Every problem response refers to it (openapi-parts.ts).
  schemaOf(Problem)
  const paths: Record<string, Json> = {}
  for (const { url, resource } of routes) paths[pathTemplate(url)] = pathItem(url, resource, schemaOf)
  Object.assign(paths, extraPaths)
  const tags = [
    ...new Set(
      Object.values(paths)
        .flatMap(operationsOf)
        .flatMap((o) => o.tags as string[]),
    ),
  ]
  const schemas = Object.fromEntries([...used].sort(([a], [b]) => a.localeCompare(b)))
  return withConfiguredLimits(
    {
      openapi: '3.1.0',
      info: {
        title: info.title,
        version: info.version,
        description: info.description,
        // The service has no address of its own to give (and a contact URL must be absolute):
        // whoever runs it answers for it.
        contact: { name: 'The operators of this service' },
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [
        {
          url: '/',
          description:
            'wherever this document was fetched from, path prefix included: local, test or production alike',
          // A public API: every operation is meant for clients outside (OWASP API9, inventory).
          'x-internal': false,
        },
      ],
      tags: tags.map((name) => ({ name, description: tagDescriptions[name] ?? name })),
      paths,
      components: {
        schemas,
        responses: sharedResponses,
        parameters: headerParameters(limits),
        securitySchemes,
      },
    },
    limits,
  )
}

/**
 * The schemas bound per_page and a page's items by the largest MAX_PER_PAGE (contract/schemas.ts);
 * the document states the running service's setting: per_page's maximum wherever it is (a body's
 * field, a query parameter), and the most items of a page.
 */
function withConfiguredLimits<T>(value: T, limits: Pick<DocumentLimits, 'maxPerPage'>, key = ''): T {
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

const tagDescriptions: Record<string, string> = {
  'entry point': 'Where a client starts: links to every collection and to this document.',
  events: 'Events, each at one location.',
  locations: 'Places where events take place.',
  relations: 'Documentation of the link relations the service defines.',
  operations: 'Probes and metrics for whoever runs the service.',
  documentation: 'This document and its reference page.',
}

function tagOf(url: string): string {
  const first = url.split('/')[1] ?? ''
  const byFirst: Record<string, string> = {
    '': 'entry point',
    events: 'events',
    locations: 'locations',
    rel: 'relations',
    health: 'operations',
    metrics: 'operations',
  }
  return byFirst[first] ?? 'documentation'
}

/** The keys of a path item that hold operations, QUERY's extension included. */
export const methodKeys = ['get', 'head', 'put', 'post', 'delete', 'options', 'patch', 'x-query']

function operationsOf(item: Json): Json[] {
  return Object.entries(item).flatMap(([key, value]) => (methodKeys.includes(key) ? [value as Json] : []))
}

/** A copy of `schema` with the contract's named schemas as references to `components`, which `used` collects. */
function referencing(schema: unknown, used: Map<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => referencing(s, used))
  if (typeof schema !== 'object' || schema === null) return schema
  const name = namedSchemas.get(schema)
  if (name !== undefined) {
    if (!used.has(name)) {
      used.set(name, undefined)
      used.set(name, copyOf(schema, used))
    }
    return { $ref: `#/components/schemas/${name}` }
  }
  return copyOf(schema, used)
}

const copyOf = (schema: object, used: Map<string, unknown>) =>
  Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, referencing(v, used)]))

/**
 * The request fields operations take. If-Match and If-None-Match have no limit of their own: the
 * whole header section is (MAX_HEADER_SIZE, 431 beyond), so no field can be longer.
 */
const headerParameters = ({ maxHeaderSize }: DocumentLimits): Record<string, Json> => ({
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

const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` })
const shared = (name: string) => ({ $ref: `#/components/responses/${name}` })

type SchemaOf = (schema: unknown) => unknown

function pathItem(url: string, resource: Resource, schemaOf: SchemaOf): Json {
  const ids = [...url.matchAll(/:(\w+)/g)].map((m) => m[1] as string)
  const item: Json =
    ids.length === 0
      ? {}
      : {
          parameters: ids.map((name) => ({
            name,
            in: 'path',
            required: true,
            description:
              'A positive decimal integer; any other text, however long, names no resource (404, never 400 or 414). Malformed percent-encoding is 400, as anywhere in the target.',
            schema: { type: 'integer', format: 'int64', minimum: 1, maximum: maxId },
          })),
        }
  for (const [method, operation] of Object.entries(resource) as [Method, Operation][]) {
    const key = method === 'QUERY' ? 'x-query' : method.toLowerCase()
    item[key] = operationObject(method, url, operation, schemaOf)
    if (method === 'GET') item.head = operationObject('HEAD', url, operation, schemaOf)
  }
  item.options = optionsObject(url, resource)
  return item
}

const operationId = (method: string, url: string) =>
  method.toLowerCase() +
  (url === '/'
    ? 'EntryPoint'
    : url
        .split(/[/.]/)
        .filter(Boolean)
        .map((part) => (part.startsWith(':') ? `By${capital(part.slice(1))}` : capital(part)))
        .join(''))

const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

/** A response body's schema in one media type: JSON types take the route's schema. */
function bodySchema(type: string, schema: unknown, schemaOf: SchemaOf): unknown {
  if (type === mediaTypes.eventStream) {
    return {
      type: 'string',
      description:
        'Server-Sent Events: `event: created|updated|deleted|reset`, `id:` a strictly increasing change number, `data:` the event as GET answers it (for deleted: its id and links).',
    }
  }
  if (!type.endsWith('json')) return { type: 'string' }
  return schema === undefined ? { type: 'object' } : schemaOf(schema)
}

function operationObject(method: Method | 'HEAD', url: string, op: Operation, schemaOf: SchemaOf): Json {
  const head = method === 'HEAD'
  const pathParameters = [...url.matchAll(/:(\w+)/g)].map((m) => m[1] as string)
  const feed = op.produces?.includes(mediaTypes.eventStream) === true
  const success = op.created ? 201 : op.produces ? 200 : 204
  const routeSchemas = (op.schema?.response ?? {}) as Record<number, unknown>
  const body = op.schema?.body as { properties?: Record<string, unknown> } | undefined
  // The feed's answer has neither ETag nor Link; every other answer of the operation has them.
  const sentWith = (field: string) => (feed ? [] : [field])
  const representation = op.produces !== undefined
  const successHeaders = responseHeaders(
    [
      ...(op.etag && representation ? sentWith('ETag') : []),
      ...(op.created ? ['Location'] : []),
      ...(op.paged || op.links ? sentWith('Link') : []),
    ],
    [
      'RateLimit',
      'RateLimit-Policy',
      'Cache-Control',
      ...(feed && op.etag ? ['ETag'] : []),
      ...(feed && (op.paged || op.links) ? ['Link'] : []),
    ],
  )
  const responses: Json = {
    [success]: {
      description: successDescription(success, op),
      headers: successHeaders,
      ...(representation &&
        !head && {
          content: Object.fromEntries(
            (op.produces ?? []).map((type) => [
              type,
              { schema: bodySchema(type, routeSchemas[success], schemaOf) },
            ]),
          ),
        }),
    },
  }
  const readOnly = !op.write
  if (op.etag && readOnly) {
    responses[304] = {
      description: 'If-None-Match names the current ETag: the client’s copy is current.',
      headers: responseHeaders(sentWith('ETag'), ['Cache-Control', 'RateLimit', 'RateLimit-Policy']),
    }
  }
  // Any request can be malformed (no Host, bad percent-encoding); a body can be bad JSON.
  responses[400] = shared('BadRequest')
  // Credentials are checked wherever they are sent, reads included.
  responses[401] = shared('Unauthorized')
  if (op.write) responses[403] = shared('Forbidden')
  if (pathParameters.length > 0) responses[404] = shared('NotFound')
  if (op.produces) responses[406] = shared('NotAcceptable')
  if (op.conflict) responses[409] = problemResponse(`Conflict: ${op.conflict}.`)
  if (op.etag) responses[412] = shared('PreconditionFailed')
  if (op.consumes) responses[413] = shared('ContentTooLarge')
  responses[415] = shared('UnsupportedMediaType')
  if ((op.consumes && op.validationStatus !== 400) || op.idempotencyKey) {
    responses[422] = shared('UnprocessableContent')
  }
  responses[429] = shared('TooManyRequests')
  responses[500] = shared('InternalServerError')
  responses[503] = shared('ServiceUnavailable')

  const query =
    op.paged && body?.properties
      ? Object.entries(body.properties).map(([name, schema]) => ({
          name,
          in: 'query',
          required: false,
          description: `${(schema as { description?: string }).description ?? name}; as in the body, which it must agree with`,
          schema: schemaOf(schema),
        }))
      : []
  return {
    operationId: operationId(method === 'QUERY' ? 'query' : method, url),
    summary: summaryOf(method, url, op),
    description: descriptionOf(method, op),
    tags: [tagOf(url)],
    security: op.write
      ? [{ basic: [] }, { signature: [] }]
      : // Credentials are optional on a read, but checked when sent.
        [{}, { basic: [] }, { signature: [] }],
    // Path parameters are the path item's.
    parameters: [
      ...query,
      ...(op.etag ? [parameter('IfMatch'), parameter('IfNoneMatch')] : []),
      ...(op.idempotencyKey ? [parameter('IdempotencyKey')] : []),
      ...(feed && !head ? [parameter('LastEventId')] : []),
      parameter('RequestId'),
    ],
    ...(op.consumes &&
      !head && {
        requestBody: {
          required: op.bodyRequired === true,
          description: op.bodyRequired
            ? 'JSON, in one of these media types.'
            : 'Optional: absent or empty means no parameters. The same parameters may be given in the query string instead.',
          content: Object.fromEntries(op.consumes.map((type) => [type, { schema: schemaOf(body) }])),
        },
      }),
    responses,
  }
}

/** A short title for the reference page, e.g. "Replace an event". */
function summaryOf(method: Method | 'HEAD', url: string, op: Operation): string {
  const segments = url.split('/').filter(Boolean)
  const one = segments.at(-1)?.startsWith(':') === true
  const collection = (one ? segments.at(-2) : segments.at(-1)) ?? ''
  const item = collection.replace(/s$/, '')
  const thing = one ? `one ${item}` : collection === '' ? 'the entry point' : url
  switch (method) {
    case 'HEAD':
      return `Headers of GET ${pathTemplate(url)}`
    case 'QUERY':
      return `A page of ${collection}, parameters in the body (HTTP QUERY)`
    case 'POST':
      return op.created ? `Create ${/^[aeiou]/.test(item) ? 'an' : 'a'} ${item}` : `POST ${url}`
    case 'PUT':
      return `Replace ${thing}`
    case 'PATCH':
      return `Change ${thing} (merge patch)`
    case 'DELETE':
      return `Delete ${thing}`
    default:
      return op.paged ? `A page of ${collection}` : `Read ${thing}`
  }
}

function successDescription(status: number, op: Operation): string {
  if (status === 201) return 'Created: the new resource, its path in Location.'
  if (status === 204) return 'Done; no body.'
  if (op.paged) return 'A page of the collection; `Link` has first, prev, next and last.'
  return 'The representation, in the type Accept chose.'
}

function descriptionOf(method: Method | 'HEAD', op: Operation): string {
  const lines = [
    op.write
      ? 'Needs credentials of an editor: HTTP Basic or an `ers-v1` request signature.'
      : 'Needs no credentials; credentials that are sent are checked.',
  ]
  if (method === 'HEAD') lines.push('The headers of GET, without a body.')
  if (method === 'QUERY') {
    lines.push(
      'The HTTP QUERY method (a safe read with a body), for intermediaries that drop a GET’s body. OpenAPI 3.1 has no slot for it: this operation object is the `x-query` extension of the path item.',
    )
  }
  if (op.produces?.includes(mediaTypes.eventStream)) {
    lines.push(
      'With `Accept: text/event-stream`, the change feed: one Server-Sent Event per committed change; `Last-Event-ID` resumes.',
    )
  }
  if (op.describedBy) lines.push(`Documented further at ${op.describedBy}.`)
  return lines.join('\n\n')
}

function optionsObject(url: string, resource: Resource): Json {
  const accepting = Object.keys(acceptHeaders(resource))
  const describedBy = Object.values(resource).some((operation) => operation.describedBy)
  return {
    operationId: operationId('options', url),
    summary: `Methods of ${pathTemplate(url)}`,
    description: `The methods of the resource (${allowedMethods(resource).join(', ')}), and the body types its operations take. Needs no credentials; a CORS preflight gets the same methods.`,
    tags: [tagOf(url)],
    security: [],
    parameters: [parameter('RequestId')],
    responses: {
      204: {
        description: 'The methods in Allow; Accept-Post, Accept-Patch, Accept-Query where they apply.',
        headers: responseHeaders(['Allow', ...accepting, ...(describedBy ? ['Link'] : [])]),
      },
      // Never 401 or 429: OPTIONS takes no credentials and is not counted (a CORS preflight
      // carries none), but a body is refused like any other.
      400: shared('BadRequest'),
      413: shared('ContentTooLarge'),
      415: shared('UnsupportedMediaType'),
      500: shared('InternalServerError'),
    },
  }
}

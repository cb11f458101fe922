// The OpenAPI 3.1 document, made from the route table (http/resource.ts) and the contract's
// schemas, never written by hand: each operation's statuses, fields and media types follow from
// its traits (write, produces, consumes, etag, paged, created…), so the document cannot drift from
// what is served. Pure: the same table always gives the same document.
import { mediaTypes } from '../contract/media-types.ts'
import { maxId, Problem } from '../contract/schemas.ts'
import {
  type DocumentLimits,
  defaultLimits,
  headerParameters,
  withConfiguredLimits,
} from './openapi-limits.ts'
import {
  type Json,
  namedSchemas,
  problemResponse,
  responseHeaders,
  securitySchemes,
  sharedResponses,
} from './openapi-parts.ts'
import {
  descriptionOf,
  operationId,
  pathTemplate,
  successDescription,
  summaryOf,
  tagDescriptions,
  tagOf,
} from './openapi-wording.ts'
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
  const operations = Object.values(paths).flatMap(operationsOf)
  const tags = [...new Set(operations.flatMap((o) => o.tags as string[]))]
  // sort's code-unit order: localeCompare would load ICU's collation data (store/migrator.ts).
  const schemas = Object.fromEntries([...used.keys()].sort().map((name) => [name, used.get(name)]))
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

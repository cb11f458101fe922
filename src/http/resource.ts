// The route table. Each resource declares its operations once; from that one declaration come the
// routes, OPTIONS, 405 with Allow (RFC 9110 §15.5.6) and the Accept-Post / Accept-Patch /
// Accept-Query fields, so what is advertised can never drift from what is served.
import type { IncomingMessage } from 'node:http'
import type { Readable } from 'node:stream'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify'
import { DomainError } from '../domain/errors.ts'
import type { User } from '../domain/types.ts'

/** A request whose body and query have the static types of the operation's TypeBox schemas. */
export type TypedRequest<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  IncomingMessage,
  S,
  TypeBoxTypeProvider
>

export interface Operation<S extends FastifySchema = FastifySchema> {
  /** Needs credentials of a user allowed to write. */
  readonly write?: boolean
  /** Media types the response can take, the preferred first; absent for responses without a body. */
  readonly produces?: readonly string[]
  /** Media types the request body may have; absent when the operation takes no body. */
  readonly consumes?: readonly string[]
  /** A body must be sent (else it may be absent or empty). */
  readonly bodyRequired?: boolean
  /** Status of a schema validation failure: 422 for fields, 400 for parameters. */
  readonly validationStatus?: 400 | 422
  /**
   * What to say, in place of the validator's "must NOT have additional properties", about a
   * member the body may not carry at its top level, by name: where a person is likely to send it
   * and the request they want is another (PUT /events/<id> with `location_id`: that is PATCH).
   */
  readonly unknownFieldHints?: Readonly<Record<string, string>>
  readonly schema?: S
  /**
   * A link relation whose documentation tells what the operation offers beyond this table (GET
   * /events: its change feed); OPTIONS links to it as `describedby`.
   */
  readonly describedBy?: string
  /**
   * Answers with an ETag and honours preconditions: If-None-Match on a read (304), If-Match and
   * If-None-Match (412). The OpenAPI document (http/openapi.ts) reads this and the traits below.
   */
  readonly etag?: boolean
  /** A page of a collection: its parameters also in the query string, its pages in `Link`. */
  readonly paged?: boolean
  /** Answers with a `Link` field (the entry point's links). */
  readonly links?: boolean
  /** Creates a resource: 201 with `Location`. */
  readonly created?: boolean
  /** When the operation answers 409 (absent: never). */
  readonly conflict?: string
  /** Honours `Idempotency-Key` (a reused key with another body: 422). */
  readonly idempotencyKey?: boolean
  /**
   * Its handler writes through confirmedWrite (http/authenticate.ts), which confirms the
   * principal's credentials in the write's own statement: a remembered Basic credential is then
   * not looked up before it.
   */
  readonly confirmsCredentials?: boolean
  /**
   * Sets the answer's status and fields on `reply` and resolves to its body (Body), which Fastify
   * then sends; it never calls `reply.send` itself.
   */
  handler(request: TypedRequest<S>, reply: FastifyReply): Promise<Body>
}

/**
 * What an operation's handler resolves to: the body of its answer (a representation, bytes, a
 * stream), or undefined for none (304, 204). Never the reply: a promise resolved with the reply
 * (`return reply.send(…)`) takes it as a thenable, and Fastify's `reply.then` waits for the
 * response to finish, with end-of-stream listeners on it. Answers leave at the end of the event
 * loop's turn (answer-steps.ts), so every such request paid for those listeners, and they kept the
 * request's objects alive long enough to be promoted out of V8's young generation: a Basic PUT on
 * PostgreSQL promoted 7.9 KB where it now promotes 3.5 (docs/performance.md, "An eighth
 * machine"). The type leaves the reply out (an interface has no index signature), and
 * test/contract/handler-bodies.test.ts checks that no answer goes through `reply.then`.
 */
export type Body = string | Uint8Array | Readable | { readonly [field: string]: unknown } | undefined

/** An operation whose handler sees the types of its schemas (`request.body` from `schema.body`). */
export const operation = <S extends FastifySchema>(declared: Operation<S>): Operation<S> => declared

export type Method = 'GET' | 'QUERY' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export type Resource = Partial<Record<Method, Operation>>

declare module 'fastify' {
  interface FastifyContextConfig {
    operation?: Operation
    method?: Method
    validationStatus?: 400 | 422
    /** On a resource's OPTIONS route: its Allow field. */
    allow?: string
  }
  interface FastifyRequest {
    /** The authenticated user of a write, set by the authentication hook. */
    principal?: User
    /**
     * Set with an `unconfirmed` principal: authenticates the request anew, in full
     * (http/authenticate.ts confirmedWrite).
     */
    confirmPrincipal?: () => Promise<User>
    /**
     * Set with an `unconfirmed` API key's principal until its write spends the request's nonce
     * (confirmedWrite). A request refused before that (400, 422, 429…) spends it here before its
     * answer, which this gives: `refusal` itself, or the refusal of a replay (signature-auth.ts).
     */
    unspentNonce: ((refusal: unknown) => Promise<unknown>) | null
    /** The media type chosen by negotiation for the response. */
    representation?: string
  }
}

/** Response fields naming the body types accepted by POST, PATCH and QUERY (RFC 9110 has none for PUT). */
const acceptFields: Partial<Record<Method, string>> = {
  POST: 'Accept-Post',
  PATCH: 'Accept-Patch',
  QUERY: 'Accept-Query',
}

export function allowedMethods(resource: Resource): string[] {
  const methods = Object.keys(resource) as Method[]
  return [...methods, ...(resource.GET ? ['HEAD'] : []), 'OPTIONS']
}

/** Accept-Post and friends for every operation of the resource that takes a body. */
export function acceptHeaders(resource: Resource): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [method, field] of Object.entries(acceptFields) as [Method, string][]) {
    const types = resource[method]?.consumes
    if (types) headers[field] = types.join(', ')
  }
  return headers
}

export function acceptFieldOf(method: Method): string | undefined {
  return acceptFields[method]
}

/** One resource of the route table: its URL (Fastify syntax, `:id`) and its operations. */
export interface RouteEntry {
  readonly url: string
  readonly resource: Resource
}

// Per app, since tests build many apps in one process.
const tables = new WeakMap<FastifyInstance, RouteEntry[]>()

/**
 * The resources registered on `app` so far, in order: the OpenAPI document and the relation docs
 * (http/relation-docs.ts) are made from them.
 */
export function routeTable(app: FastifyInstance): readonly RouteEntry[] {
  return tables.get(app) ?? []
}

/** The resource registered at `url` (as written in the table, `/events/:id`), if any. */
export function registeredResource(app: FastifyInstance, url: string): Resource | undefined {
  return routeTable(app).find((entry) => entry.url === url)?.resource
}

export function registerResource(app: FastifyInstance, url: string, resource: Resource): void {
  const table = tables.get(app) ?? []
  tables.set(app, [...table, { url, resource }])
  const allow = allowedMethods(resource).join(', ')
  const described = Object.values(resource).flatMap((operation) =>
    operation.describedBy ? [`<${operation.describedBy}>; rel="describedby"`] : [],
  )
  const link = described.length > 0 ? { link: described.join(', ') } : {}
  for (const [method, operation] of Object.entries(resource) as [Method, Operation][]) {
    app.route({
      method,
      url,
      schema: operation.schema ?? {},
      config: { operation, method, validationStatus: operation.validationStatus ?? 422 },
      handler: operation.handler,
    })
  }
  registerOtherMethods(app, url, allow, { ...acceptHeaders(resource), ...link })
}

/**
 * OPTIONS, answering `allow` and `headers`, and 405 with Allow for every method not in `allow`:
 * for a resource of the table, and for pages served by a plugin (the reference page) alike.
 */
export function registerOtherMethods(
  app: FastifyInstance,
  url: string,
  allow: string,
  headers: Record<string, string | undefined> = {},
): void {
  app.route({
    method: 'OPTIONS',
    url,
    // A CORS preflight answers with the same methods (http/cors.ts).
    config: { allow },
    async handler(_request, reply) {
      reply.code(204).headers({ allow, ...headers })
      return undefined
    },
  })
  const others = app.supportedMethods.filter((m) => !allow.split(', ').includes(m))
  app.route({
    method: others,
    url,
    exposeHeadRoute: false,
    // Refuse before anything else happens (no authentication, no body read).
    onRequest: async (request, reply) => {
      reply.header('allow', allow)
      throw new DomainError('method_not_allowed', `${request.method} is not supported here; use ${allow}`)
    },
    handler: async () => undefined,
  })
}

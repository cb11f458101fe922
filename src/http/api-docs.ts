// GET /openapi.json, the OpenAPI document made once at start-up from the route table
// (http/openapi.ts), and GET /docs, Swagger UI rendering it, every asset served from here: no CDN,
// no validator, no font from another host. Registered last, so that the table is complete.
import { readFileSync } from 'node:fs'
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { mediaTypes } from '../contract/media-types.ts'
import { contentEtag } from '../domain/etag.ts'
import type { Authenticate } from './authenticate.ts'
import { notModified } from './conditional.ts'
import { inlineDocumentPlugin } from './docs-inline.ts'
import { paths } from './links.ts'
import { type DocumentInfo, openApiDocument } from './openapi.ts'
import { type DocumentLimits, defaultLimits } from './openapi-limits.ts'
import { type Json, responseHeaders } from './openapi-parts.ts'
import { checkingCredentials } from './pipeline.ts'
import { registerOtherMethods, registerResource, routeTable } from './resource.ts'

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string
}

/** The OpenAPI Initiative's type for the document, offered beside application/json. */
export const openApiType = 'application/vnd.oai.openapi+json'

const description = `A hypermedia API of events and their locations. A client needs one URL, \`/\`: every resource is reached by following links (\`links\` in each body, RFC 8288 \`Link\` fields on pages and on the entry point).

**Media types.** Each representation has its own type (\`application/vnd.service.event+json\` and so on); \`Accept\` absent, \`*/*\`, \`application/*\` or \`application/json\` gets it. Anything else is 406. Request bodies are JSON (\`application/json\` or the vendor type); PATCH takes \`application/merge-patch+json\` (RFC 7396). Errors are \`application/problem+json\` (RFC 9457) with \`errors: [{pointer, detail}]\` for invalid fields.

**Methods.** HEAD answers as GET without a body. OPTIONS lists the methods in \`Allow\`. A method a resource does not have is 405 with \`Allow\`, a path that names nothing 404.

**QUERY.** \`/events\` also answers the HTTP QUERY method (a safe read whose parameters travel in a JSON body, for intermediaries that drop a GET's body). OpenAPI 3.1 has no slot for it (3.2's \`query\` is not yet rendered by the reference page), so it is described as the \`x-query\` operation of the path item; tools that do not know the extension ignore it.

**Credentials.** Reads need none; writes need an editor's HTTP Basic credentials or an \`ers-v2\` request signature (RFC 9421, covering the method, target, body and any If-Match, If-None-Match and Idempotency-Key). Credentials that are sent are checked on reads too, the reference page and its assets included.

**Every response** carries \`X-Request-Id\` and \`Vary: Accept\`; counted requests carry \`RateLimit\` and \`RateLimit-Policy\`; 429 and 503 carry \`Retry-After\`.`

export function registerApiDocs(
  app: FastifyInstance,
  authenticate: Authenticate,
  info: Partial<DocumentInfo> = {},
  limits: DocumentLimits = defaultLimits,
): void {
  // Filled in below, once the table (this resource included) is complete.
  let body = Buffer.alloc(0)
  let etag = ''
  registerResource(app, paths.openApi, {
    GET: {
      produces: [mediaTypes.json, openApiType],
      etag: true,
      async handler(request, reply) {
        if (notModified(request, reply, etag, 'the OpenAPI document')) {
          reply.code(304)
          return undefined
        }
        reply.type(request.representation ?? mediaTypes.json)
        return body
      },
    },
  })
  const document = openApiDocument(
    routeTable(app),
    {
      title: 'Event Resource Service',
      version: packageJson.version,
      description,
      ...info,
    },
    { [paths.docs]: referencePage },
    limits,
  )
  body = Buffer.from(JSON.stringify(document))
  etag = contentEtag(body.toString('utf8'))

  // Static mode: the document above, not one collected from the routes' schemas.
  app.register(fastifySwagger, { mode: 'static', specification: { document: document as never } })
  // The page and its assets are no operations of the table, so the pipeline does not check the
  // credentials they carry: this scope does, as for every read (http/authenticate.ts).
  app.register(async (scope) => {
    scope.addHook('onRequest', checkingCredentials(authenticate))
    await scope.register(fastifySwaggerUi, {
      routePrefix: paths.docs,
      // The page's own policy: its scripts and styles come from here; Swagger UI sets style
      // attributes and draws icons as data: images.
      staticCSP: docsContentSecurityPolicy,
      // The page's asset URLs become ./docs/static/…: relative, so they work behind a path prefix.
      indexPrefix: '.',
      theme: { title: 'Event Resource Service API' },
      uiConfig: {
        deepLinking: true,
        // No top bar: it showed Fastify's logo and an "Explore" box holding /docs/json. The page
        // opens with the document's own title, the service's name.
        layout: 'BaseLayout',
        // The document travels inside swagger-initializer.js (docs-inline.ts): no second request.
        spec: document as Record<string, unknown>,
        plugins: [inlineDocumentPlugin],
      },
      // ./json (and ./yaml) still serve the document, for tools. Its server "/" would resolve to the
      // host's root, past a proxy's path prefix: this copy names the base reached (TRUST_PROXY).
      transformSpecificationClone: false,
      transformSpecification: (spec, request) => ({
        ...spec,
        servers: [{ url: request.externalUrl('/'), description: 'where this page was reached' }],
      }),
    })
  })
  // The page and its assets are read-only: OPTIONS names GET, another method is 405, not the 404
  // of a path that names nothing. Outside the scope above: like the table's, these answers never
  // look at credentials.
  for (const url of docsPaths) registerOtherMethods(app, url, 'GET, HEAD, OPTIONS')
}

const docsPaths = ['', '/', '/json', '/yaml', '/static/*'].map((path) => `${paths.docs}${path}`)

const docsContentSecurityPolicy =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'"

const shared = (name: string) => ({ $ref: `#/components/responses/${name}` })

/** GET /docs is Swagger UI's page (not a route of the table), described by hand. */
const referencePage: Json = Object.fromEntries(
  (['get', 'head'] as const).map((method) => [
    method,
    {
      operationId: `${method}Docs`,
      summary: method === 'get' ? 'The reference page' : 'Headers of GET /docs',
      description:
        'The interactive reference (Swagger UI) of this document. Its assets under /docs/static/, and /docs/json and /docs/yaml (this document again, as Swagger UI loads it), are not listed here.',
      tags: ['documentation'],
      // Public, but credentials that are sent are checked, as on every read.
      security: [{}, { basic: [] }, { signature: [] }],
      responses: {
        200: {
          description: 'The reference page.',
          headers: responseHeaders([]),
          ...(method === 'get' && { content: { 'text/html': { schema: { type: 'string' } } } }),
        },
        // Credentials that are sent are checked, as on every read; malformed percent-encoding is 400.
        400: shared('BadRequest'),
        401: shared('Unauthorized'),
        413: shared('ContentTooLarge'),
        415: shared('UnsupportedMediaType'),
        429: shared('TooManyRequests'),
        500: shared('InternalServerError'),
      },
    },
  ]),
)
referencePage.options = {
  operationId: 'optionsDocs',
  summary: 'Methods of /docs',
  description: 'The methods of the reference page (GET, HEAD, OPTIONS). Needs no credentials.',
  tags: ['documentation'],
  security: [],
  responses: {
    204: { description: 'The methods in Allow.', headers: responseHeaders(['Allow']) },
    400: shared('BadRequest'),
    413: shared('ContentTooLarge'),
    415: shared('UnsupportedMediaType'),
    500: shared('InternalServerError'),
  },
}

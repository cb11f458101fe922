// GET /openapi.json (CONTRACT.md §8): the OpenAPI 3.1 document lists every route the server
// registers, passes Redocly's linter, and an outside generator (openapi-typescript) makes types
// from it that a client type-checks against. Every response of the contract suite is also checked
// against it (test/support/openapi-check.ts). The document does not depend on the store: it is
// tested on the first store only.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { channel } from 'node:diagnostics_channel'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { contractService, type Json, types } from '../support/contract.ts'
import { DeclaredResponses } from '../support/openapi-check.ts'
import type { Response } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const run = promisify(execFile)
const root = resolve(import.meta.dirname, '../..')
const bin = (name: string) => join(root, 'node_modules/.bin', name)

/** Routes as Fastify registers them: every app made while `collecting` is on, from its first route. */
const registered: { method: string[]; url: string; config: Json }[] = []
let collecting = false
channel('fastify.initialization').subscribe((message) => {
  if (!collecting) return
  const { fastify } = message as { fastify: FastifyInstance }
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const method = Array.isArray(route.method) ? route.method : [route.method]
    registered.push({ method: method.map(String), url: route.url, config: route.config })
  })
})

const [target] = storeTargets
if (!target) throw new Error('no store to test on')

describe(`[${target.name}] the OpenAPI document`, () => {
  before(() => {
    collecting = true
  })
  const ctx = contractService(target, { location: false })
  let document: Json
  let dir: string
  let file: string
  before(async () => {
    collecting = false
    const res = await ctx.http('GET', '/openapi.json')
    assert.equal(res.status, 200, res.text)
    document = res.json()
    dir = mkdtempSync(join(tmpdir(), 'ers-openapi-'))
    file = join(dir, 'openapi.json')
    writeFileSync(file, res.text)
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  /** method → path template, as the document lists them (QUERY is the x-query extension). */
  const documented = () =>
    new Set(
      Object.entries<Json>(document.paths).flatMap(([template, item]) =>
        Object.keys(item)
          .filter((key) =>
            ['get', 'head', 'put', 'post', 'delete', 'options', 'patch', 'x-query'].includes(key),
          )
          .map((key) => `${key === 'x-query' ? 'QUERY' : key.toUpperCase()} ${template}`),
      ),
    )

  it('lists every route the server registers, and nothing it does not', () => {
    assert.ok(registered.length > 0, 'the routes were seen as they were registered')
    const template = (url: string) => url.replace(/:(\w+)/g, '{$1}')
    const served = new Set<string>()
    for (const route of registered) {
      // Swagger UI's assets and its own copies of the document (/docs/json, /docs/yaml) are left
      // out on purpose; its page, /docs, is listed.
      if (route.url.startsWith('/docs/')) continue
      const isOperation = route.config?.operation !== undefined || route.config?.allow !== undefined
      // The page itself is served by Swagger UI, not the table: its GET and HEAD are operations too.
      const page = route.url === '/docs' && route.method.some((m) => m === 'GET' || m === 'HEAD')
      if (!isOperation && !page) {
        // The 405 answer of a resource: none of its methods may be one the document lists.
        for (const method of route.method) {
          assert.ok(!documented().has(`${method} ${template(route.url)}`), `${method} ${route.url} is a 405`)
        }
        continue
      }
      for (const method of route.method) served.add(`${method} ${template(route.url)}`)
    }
    assert.deepEqual([...documented()].sort(), [...served].sort())
  })

  it('declares the path ids as integers from 1, and the QUERY extension in info', () => {
    const [id] = document.paths['/events/{id}'].parameters
    assert.deepEqual(
      { name: id.name, in: id.in, type: id.schema.type, minimum: id.schema.minimum },
      {
        name: 'id',
        in: 'path',
        type: 'integer',
        minimum: 1,
      },
    )
    assert.match(document.info.description, /x-query/)
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    assert.equal(document.info.version, pkg.version)
    assert.deepEqual(document.servers, [
      { url: '/', description: document.servers[0].description, 'x-internal': false },
    ])
  })

  it('passes Redocly’s linter with the rules in redocly.yaml, with neither errors nor warnings', async () => {
    const { stdout } = await run(
      bin('redocly'),
      ['lint', file, '--config', join(root, 'redocly.yaml'), '--format=json'],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    ).catch((error: { stdout: string }) => error)
    const report = JSON.parse(stdout)
    assert.deepEqual(
      report.totals,
      { errors: 0, warnings: 0, ignored: 0 },
      JSON.stringify(report.problems, null, 1),
    )
  })

  it('passes Spectral’s OpenAPI rules and OWASP’s API security rules (.spectral.yaml), with no finding at any severity', async () => {
    // The OWASP rules that do not apply are switched off in .spectral.yaml, each explained in
    // docs/security.md: a new finding of any other rule fails here.
    const { stdout, stderr } = await run(
      bin('spectral'),
      [
        'lint',
        file,
        '--ruleset',
        join(root, '.spectral.yaml'),
        '--format=json',
        '--fail-severity=hint',
        '--quiet',
      ],
      { cwd: root },
    ).catch((error: { stdout: string; stderr: string }) => error)
    const findings = JSON.parse(stdout || 'null') as
      | { code: string; message: string; path: string[] }[]
      | null
    assert.ok(Array.isArray(findings), `spectral gave no report: ${stderr}`)
    assert.deepEqual(
      findings.map((f) => `${f.code} at ${f.path.join('/')}: ${f.message}`),
      [],
    )
  })

  it('switches off in .spectral.yaml only OWASP rules that docs/security.md explains', () => {
    const ruleset = readFileSync(join(root, '.spectral.yaml'), 'utf8')
    const security = readFileSync(join(root, 'docs/security.md'), 'utf8')
    const off = [...ruleset.matchAll(/^\s+(owasp:\S+): off$/gm)].map((m) => m[1] as string)
    assert.ok(off.length > 0)
    for (const rule of off)
      assert.ok(security.includes(`\`${rule}\``), `${rule} is explained in docs/security.md`)
  })

  it('declares the date-time rule, the paging bounds and the header limits the service enforces', () => {
    const { schemas, parameters } = document.components
    assert.ok(schemas.EventCreate.properties.date.$ref, 'the date is the shared DateTime schema')
    const date = new RegExp(schemas.DateTime.pattern)
    for (const text of ['2026-12-31T23:59:60Z', '2026-12-04T19:30:00.1234Z', '0000-01-01T00:00:00Z']) {
      assert.ok(!date.test(text), `the pattern refuses ${text}`)
    }
    assert.ok(date.test('2026-12-04T19:30:00.123+05:30'))
    const body = schemas.EventsQueryBody.properties
    assert.equal(body.from.pattern, schemas.DateTime.pattern)
    assert.equal(body.to.pattern, schemas.DateTime.pattern)
    const query = document.paths['/events'].get.parameters.filter((p: Json) => p.in === 'query')
    for (const name of ['from', 'to']) {
      assert.equal(query.find((p: Json) => p.name === name).schema.pattern, schemas.DateTime.pattern, name)
    }
    assert.equal(schemas.Event.properties.date.pattern, schemas.DateTime.pattern)
    assert.deepEqual([body.page.minimum, body.page.maximum], [1, 1_000_000_000])
    assert.deepEqual([body.per_page.minimum, body.per_page.maximum], [1, 100])
    assert.equal(query.find((p: Json) => p.name === 'per_page').schema.maximum, 100)
    assert.equal(schemas.EventCollection.properties.events.maxItems, 100)
    assert.equal(parameters.IdempotencyKey.schema.maxLength, 255)
    assert.equal(parameters.LastEventId.schema.maxLength, 16)
    assert.equal(parameters.IfMatch.schema.maxLength, 16 * 1024)
    assert.equal(parameters.IfNoneMatch.schema.maxLength, 16 * 1024)
    assert.equal(typeof document.info.contact.name, 'string')
  })

  it('declares 400, 401, 415 and 429 on every read, 503 with Retry-After on the reads of /events, and a body’s 400/413/415 on OPTIONS and /docs', () => {
    const responsesOf = (path: string, key: string) => {
      const responses = document.paths[path][key].responses
      return Object.fromEntries(
        Object.entries<Json>(responses).map(([status, r]) => [
          status,
          r.$ref ? document.components.responses[r.$ref.split('/').at(-1)] : r,
        ]),
      )
    }
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      for (const key of ['get', 'head', 'x-query']) {
        if (!item[key]) continue
        const statuses = Object.keys(responsesOf(path, key))
        for (const status of ['400', '401', '415', '429', '500']) {
          assert.ok(statuses.includes(status), `${key} ${path} declares ${status}`)
        }
      }
      if (item.options) {
        const options = Object.keys(responsesOf(path, 'options'))
        for (const status of ['400', '413', '415'])
          assert.ok(options.includes(status), `OPTIONS ${path}: ${status}`)
      }
    }
    for (const key of ['get', 'head', 'x-query']) {
      const unavailable = responsesOf('/events', key)[503]
      assert.equal(
        unavailable?.headers['Retry-After']?.required,
        true,
        `${key} /events: 503 with Retry-After`,
      )
    }
    for (const path of ['/events/{id}', '/locations/{id}']) {
      assert.ok(responsesOf(path, 'get')[404], `a long or odd id is 404 on ${path}`)
    }
  })

  it('gives openapi-typescript types a client type-checks against, and refuses a wrong use', async () => {
    await run(bin('openapi-typescript'), [file, '-o', join(dir, 'api.ts')])
    const client = (body: string) => `import type { components, paths } from './api.ts'
type Event = components['schemas']['Event']
export function firstLink(event: Event): string {
  return event.links[0]?.uri ?? ''
}
type Page = paths['/events']['get']['responses'][200]['content']['application/vnd.service.events+json']
export const titles = (page: Page): string[] => page.events.map((e) => e.title)
${body}
`
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: [],
      },
      files: ['client.ts'],
    }
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig))
    const typecheck = () =>
      run(bin('tsc'), ['-p', join(dir, 'tsconfig.json')]).then(
        () => '',
        (error: { stdout: string }) => error.stdout,
      )
    writeFileSync(join(dir, 'client.ts'), client(''))
    assert.equal(await typecheck(), '', 'the right use type-checks')
    // An event's id is a number, and it has no `name`.
    writeFileSync(join(dir, 'client.ts'), client('export const wrong = (e: Event): string => e.id + e.name'))
    assert.match(await typecheck(), /Property 'name' does not exist|not assignable/)
  })

  it('answers HEAD, If-None-Match with 304, and its own media type on request', async () => {
    const get = await ctx.http('GET', '/openapi.json')
    const etag = get.header('etag')
    assert.ok(etag, 'the document has an ETag')
    const again = await ctx.http('GET', '/openapi.json', { headers: { 'if-none-match': etag } })
    assert.equal(again.status, 304)
    const head = await ctx.http('HEAD', '/openapi.json')
    assert.equal(head.header('content-length'), get.header('content-length'))
    const own = await ctx.http('GET', '/openapi.json', {
      headers: { accept: 'application/vnd.oai.openapi+json' },
    })
    assert.equal(own.header('content-type'), 'application/vnd.oai.openapi+json')
    assert.equal((await ctx.http('GET', '/openapi.json', { headers: { accept: types.events } })).status, 406)
  })

  it('the reference page: a Content-Security-Policy, OPTIONS with Allow, 405 for a write, never credentials', async () => {
    const page = await ctx.http('GET', '/docs')
    assert.equal(page.status, 200)
    assert.match(page.header('content-security-policy') ?? '', /default-src 'self'.*frame-ancestors 'none'/)
    const bogus = { authorization: 'Basic Ym9ndXM6Ym9ndXM=' }
    // /docs is in the document; its assets and copies are not, so they go unchecked.
    for (const path of ['/docs', '/docs/', '/docs/json', '/docs/static/index.css']) {
      const send = path === '/docs' ? ctx.http : ctx.service.request.bind(ctx.service)
      const options = await send('OPTIONS', path, { headers: bogus })
      assert.equal(options.status, 204, `OPTIONS ${path}`)
      assert.equal(options.header('allow'), 'GET, HEAD, OPTIONS')
      const write = await send('DELETE', path, { headers: bogus })
      assert.equal(write.status, 405, `DELETE ${path}: ${write.text}`)
      assert.equal(write.header('allow'), 'GET, HEAD, OPTIONS')
      assert.equal(write.header('content-type'), types.problem)
    }
    assert.equal((await ctx.service.request('DELETE', '/docs/nothing')).status, 404)
  })

  it('the contract suite’s check refuses what the document does not declare', () => {
    const declared = new DeclaredResponses(document)
    const response = (status: number, headers: Record<string, string>, text = ''): Response => ({
      status,
      headers,
      text,
      json: () => JSON.parse(text),
      header: (name) => headers[name.toLowerCase()],
    })
    const common = { 'x-request-id': 'r', vary: 'Accept' }
    const problem = (status: number) =>
      JSON.stringify({ type: 'about:blank', title: 'x', status, detail: 'x' })
    // Declared: a 404 problem for a non-numeric id.
    declared.check(
      'GET',
      '/events/abc',
      response(404, { ...common, 'content-type': types.problem }, problem(404)),
    )
    // Not declared: 409 on GET, a body off its schema, a missing ETag, a wrong Allow.
    assert.throws(() =>
      declared.check(
        'GET',
        '/events/1',
        response(409, { ...common, 'content-type': types.problem }, problem(409)),
      ),
    )
    assert.throws(() =>
      declared.check(
        'GET',
        '/events/1',
        response(200, { ...common, etag: '"1"', 'content-type': types.event }, '{"id":1}'),
      ),
    )
    assert.throws(() =>
      declared.check(
        'GET',
        '/events/1',
        response(
          200,
          { ...common, 'content-type': types.event },
          '{"links":[],"id":1,"title":"t","date":"d"}',
        ),
      ),
    )
    assert.throws(() => declared.check('PUT', '/events', response(405, { ...common, allow: 'GET' }, '')))
  })
})

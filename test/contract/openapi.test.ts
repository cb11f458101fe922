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
      if (!isOperation && !route.url.startsWith('/docs')) {
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
    assert.deepEqual(document.servers, [{ url: '/', description: document.servers[0].description }])
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

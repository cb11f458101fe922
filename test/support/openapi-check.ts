// Checks a response against what the OpenAPI document (GET /openapi.json) declares for its method
// and path: the status is declared, the Content-Type is one declared for that status, a JSON body
// validates against the declared schema (Ajv, JSON Schema 2020-12: TypeBox's schemas are plain
// JSON Schema), and the fields the document marks required are present. A method the path item
// lacks must be 405 with Allow naming exactly the path item's methods; a path no template matches,
// 404. The document is made once per process, validators compiled once per schema.
import assert from 'node:assert/strict'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import formats from 'ajv-formats'
import { buildApp } from '../../src/app.ts'
import { parseConfig } from '../../src/config.ts'
import { openStore, storeOptions } from '../../src/store/open-store.ts'
import type { Response } from './service.ts'

// biome-ignore lint/suspicious/noExplicitAny: the document is walked by JSON pointer
type Json = any

const methodKeys: Record<string, string> = { QUERY: 'x-query' }
const keyOf = (method: string) => methodKeys[method] ?? method.toLowerCase()
const methodOf = (key: string) => (key === 'x-query' ? 'QUERY' : key.toUpperCase())
const operationKeys = ['get', 'head', 'put', 'post', 'delete', 'options', 'patch', 'x-query']

/** `/` + escaped segments (RFC 6901), each also percent-encoded for a URI fragment. */
const fragment = (segments: readonly string[]) =>
  segments.map((s) => `/${encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'))}`).join('')

export class DeclaredResponses {
  readonly #document: Json
  readonly #ajv: Ajv2020
  readonly #validators = new Map<string, ValidateFunction>()
  readonly #templates: readonly { template: string; pattern: RegExp }[]

  constructor(document: Json) {
    this.#document = document
    // strict off: the document around the schemas is not a schema; formats as the service checks them.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
    // A CommonJS module: its function is the default export's `default`.
    formats.default(this.#ajv)
    this.#ajv.addSchema(document, 'openapi')
    this.#templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`),
    }))
  }

  /** The path template a concrete path matches, if any. */
  templateOf(path: string): string | undefined {
    const bare = path.split('?')[0] ?? path
    return this.#templates.find(({ pattern }) => pattern.test(bare))?.template
  }

  /** Fails unless the response is one the document declares for this request. */
  check(method: string, path: string, res: Response): void {
    const where = `${method} ${path} → ${res.status} (OpenAPI)`
    const template = this.templateOf(path)
    if (template === undefined) {
      assert.equal(res.status, 404, `${where}: the document lists no path like this, so only 404 fits`)
      return
    }
    const item = this.#document.paths[template]
    const operation = item[keyOf(method)]
    if (operation === undefined) {
      assert.equal(res.status, 405, `${where}: ${template} declares no ${method}, so only 405 fits`)
      const declared = operationKeys.filter((key) => item[key] !== undefined).map(methodOf)
      const allow = (res.header('allow') ?? '').split(',').map((m) => m.trim())
      assert.deepEqual(
        allow.sort(),
        declared.sort(),
        `${where}: Allow must name the methods the document lists`,
      )
      return
    }
    const key = keyOf(method)
    let pointer = ['paths', template, key, 'responses', String(res.status)]
    let response = operation.responses[String(res.status)]
    assert.ok(
      response !== undefined,
      `${where}: status ${res.status} is not declared for ${method} ${template} (declared: ${Object.keys(operation.responses).join(', ')}); body: ${res.text}`,
    )
    if (response.$ref) {
      pointer = (response.$ref as string)
        .slice(2)
        .split('/')
        .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
      response = this.#resolve(response.$ref)
    }
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
      if (header.required) {
        assert.ok(res.header(name) !== undefined, `${where}: the document says ${name} is always sent`)
      }
    }
    if (method === 'HEAD' || res.text === '') return
    const type = (res.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
    const content = response.content ?? {}
    assert.ok(
      type in content,
      `${where}: Content-Type ${type} is not declared for this status (declared: ${Object.keys(content).join(', ') || 'none'})`,
    )
    if (!type.endsWith('json')) return
    const validate = this.#validator([...pointer, 'content', type, 'schema'])
    const body = JSON.parse(res.text)
    assert.ok(
      validate(body),
      `${where}: the body does not match the declared schema: ${this.#ajv.errorsText(validate.errors)}; body: ${res.text.slice(0, 500)}`,
    )
  }

  #resolve(ref: string): Json {
    let node = this.#document
    for (const segment of ref.slice(2).split('/')) {
      node = node[segment.replaceAll('~1', '/').replaceAll('~0', '~')]
    }
    return node
  }

  #validator(pointer: readonly string[]): ValidateFunction {
    const ref = `openapi#${fragment(pointer)}`
    const known = this.#validators.get(ref)
    if (known) return known
    const validate = this.#ajv.compile({ $ref: ref })
    this.#validators.set(ref, validate)
    return validate
  }
}

let declared: Promise<DeclaredResponses> | undefined

/**
 * The document as the service serves it, asked once per process of an app of its own (in memory,
 * not listening): fetching it from the service under test would spend that test's read quota.
 */
export function declaredResponses(): Promise<DeclaredResponses> {
  declared ??= (async () => {
    const config = parseConfig({ databaseUrl: 'sqlite::memory:', logLevel: 'silent' })
    const store = openStore(config.databaseUrl, storeOptions(config))
    const app = buildApp({ config, store })
    try {
      const res = await app.inject({ method: 'GET', url: '/openapi.json' })
      assert.equal(res.statusCode, 200, res.body)
      return new DeclaredResponses(res.json())
    } finally {
      await app.close()
      await store.close()
    }
  })()
  return declared
}

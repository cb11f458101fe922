// Starts the real service (buildApp + listen on a free port, real database) for a test, with an
// editor and a reader whose passwords are known, and speaks HTTP to it with undici.
import type { FastifyInstance } from 'fastify'
import { type Dispatcher, request as undiciRequest } from 'undici'
import { type AppDependencies, buildApp } from '../../src/app.ts'
import { hashPassword } from '../../src/auth/passwords.ts'
import { type Config, parseConfig } from '../../src/config.ts'
import { prepareDatabase } from '../../src/prepare.ts'
import type { KyselyStore } from '../../src/store/kysely-store.ts'
import { openStore, storeOptions } from '../../src/store/open-store.ts'
import type { StoreTarget } from './stores.ts'

export const editor = { user: 'editor', password: 'editor-password-1' }
export const reader = { user: 'reader', password: 'reader-password-1' }

export const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

export interface Response {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  /** The body parsed as JSON (throws when it is not). */
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect response bodies freely
  json<T = Record<string, any>>(): T
  header(name: string): string | undefined
}

export interface RequestOptions {
  readonly headers?: Record<string, string>
  /** A string or bytes is sent as is; anything else as JSON (Content-Type must be set by the caller). */
  readonly body?: unknown
}

export interface TestService {
  readonly baseUrl: string
  readonly port: number
  readonly store: KyselyStore
  /** The test's own database, for tests that must reach it beside the service. */
  readonly databaseUrl: string
  readonly editorAuth: string
  readonly readerAuth: string
  request(method: string, path: string, options?: RequestOptions): Promise<Response>
  close(): Promise<void>
}

/** Settings a test gives the service, as text the way the environment would (see parseConfig). */
export type ServiceSettings = Partial<Record<keyof Config, string>>

// Hashing is deliberately slow; the two test users' hashes are made once per process.
let hashes: Promise<[string, string]> | undefined

export async function startService(
  target: StoreTarget,
  settings: ServiceSettings = {},
  /**
   * buildApp's test options: a rate-limit key prefix of the test's own in a shared Redis, a logger
   * to read; and what the test adds to the app before it listens (a hook that watches requests).
   */
  {
    beforeListen,
    ...options
  }: Pick<AppDependencies, 'rateLimitKeyPrefix' | 'logger' | 'connectionClock'> & {
    readonly beforeListen?: (app: FastifyInstance) => void
  } = {},
): Promise<TestService> {
  const database = await target.create()
  const config = parseConfig({
    logLevel: 'silent',
    seed: 'false',
    // A test sends far more than a person would, all from one address and one user: request rate
    // limits are off unless the test is about them (test/contract/rate-limits.test.ts sets them).
    rateLimitReads: '0',
    rateLimitWrites: '0',
    ...database.settings,
    ...settings,
    databaseUrl: database.databaseUrl,
    port: '0',
    host: '127.0.0.1',
  })
  const store = openStore(config.databaseUrl, storeOptions(config))
  await prepareDatabase(store, { ...config, adminPassword: 'admin-password-1' })
  hashes ??= Promise.all([hashPassword(editor.password), hashPassword(reader.password)])
  const [editorHash, readerHash] = await hashes
  await store.putUser(editor.user, 'editor', editorHash)
  await store.putUser(reader.user, 'reader', readerHash)
  const app = buildApp({ ...options, config, store })
  beforeListen?.(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const baseUrl = `http://127.0.0.1:${port}`
  return {
    baseUrl,
    port,
    store,
    databaseUrl: database.databaseUrl,
    editorAuth: basic(editor.user, editor.password),
    readerAuth: basic(reader.user, reader.password),
    request: (method, path, options) => send(baseUrl, method, path, options),
    async close() {
      await app.close()
      await store.close()
      await database.drop()
    },
  }
}

export async function send(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const { body } = options
  const payload =
    body === undefined || typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body)
  const res = await undiciRequest(`${baseUrl}${path}`, {
    method: method as 'GET',
    headers: options.headers ?? {},
    ...(payload !== undefined && { body: payload as string }),
  })
  return readResponse(res)
}

/** Reads the whole body of an undici answer and gives it as a Response. */
export async function readResponse(res: Dispatcher.ResponseData): Promise<Response> {
  const text = await res.body.text()
  return {
    status: res.statusCode,
    headers: res.headers,
    text,
    json: () => JSON.parse(text),
    header(name) {
      const value = res.headers[name.toLowerCase()]
      return Array.isArray(value) ? value.join(', ') : value
    },
  }
}

/** One event at a new location, made through the store: its id and its ETag. */
export async function oneEvent(store: KyselyStore, title: string): Promise<{ id: number; etag: string }> {
  const location = await store.createLocation({ name: 'Hall', address: 'Street 1' })
  const event = await store.createEvent({ title, date: Date.UTC(2027, 1, 1), locationId: location.id })
  return { id: event.id, etag: `"v${event.version}"` }
}

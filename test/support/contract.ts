// Helpers shared by the contract suite (test/contract): a client that checks the rules holding for
// every response (CONTRACT.md §3–§5), assertions for problem bodies and event representations, and
// the service each describe block tests (contractService), with fixtures made through the front
// door. Only the locations of fixtures are made through the store, so that a test's write quota
// (test/contract/rate-limits.test.ts) and credentials are spent on what it tests;
// test/contract/locations.test.ts writes them over HTTP.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { Readable } from 'node:stream'
import { after, before } from 'node:test'
import { request as undiciRequest } from 'undici'
import type { GuardClock } from '../../src/http/connection-guard.ts'
import { declaredResponses } from './openapi-check.ts'
import {
  type RequestOptions,
  type Response,
  readResponse,
  type ServiceSettings,
  startService,
  type TestService,
} from './service.ts'
import type { StoreTarget } from './stores.ts'

export const types = {
  events: 'application/vnd.service.events+json',
  event: 'application/vnd.service.event+json',
  location: 'application/vnd.service.location+json',
  locations: 'application/vnd.service.locations+json',
  api: 'application/vnd.service.api+json',
  problem: 'application/problem+json',
  json: 'application/json',
  mergePatch: 'application/merge-patch+json',
} as const

export type Http = (method: string, path: string, options?: RequestOptions) => Promise<Response>

// What must never reach a client (CONTRACT.md §5): stack frames, SQL, driver names, source paths.
const leaks: readonly [string, RegExp][] = [
  ['a stack frame', /\n\s*at\s|\bat\s+\S+\s+\(|\bat\s+(?:async\s+)?\S+:\d+:\d+/],
  ['a source path', /node_modules|\/src\/|\/work\/|\.ts:\d+|\.js:\d+|file:\/\//],
  [
    'SQL',
    /\bselect\b[\s\S]{0,200}\bfrom\b|\binsert\s+into\b|\bupdate\s+"?\w+"?\s+set\b|\bdelete\s+from\b|\bwhere\s+"?\w+"?\s*=/i,
  ],
  [
    'a database error',
    /SQLITE_|sqlite|better-sqlite3|kysely|syntax error at or near|violates .* constraint/i,
  ],
  ['an internal error name', /\b(?:TypeError|ReferenceError|RangeError|SqliteError)\b/],
]

/** Fails when a body carries anything internal. */
export function assertNoLeak(text: string, where: string): void {
  for (const [what, pattern] of leaks) {
    assert.doesNotMatch(text, pattern, `${where}: the body must not contain ${what}: ${text}`)
  }
}

const imfFixdate =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/

/** The headers every response carries, whatever its status (CONTRACT.md §1, §3, §4, §5). */
export function assertCommonHeaders(res: Response, where: string): void {
  const date = res.header('date')
  assert.ok(date !== undefined, `${where}: Date is missing`)
  assert.match(date, imfFixdate, `${where}: Date must be an IMF-fixdate (RFC 9110 §5.6.7)`)
  const vary = res.header('vary') ?? ''
  assert.ok(
    vary.split(',').some((token) => token.trim().toLowerCase() === 'accept' || token.trim() === '*'),
    `${where}: Vary must name Accept, got ${JSON.stringify(vary)}`,
  )
  const requestId = res.header('x-request-id')
  assert.ok(requestId !== undefined && requestId.trim() !== '', `${where}: X-Request-Id is missing`)
  assert.equal(res.headers['set-cookie'], undefined, `${where}: the service is stateless, never Set-Cookie`)
}

/** Checks what holds for every response: headers, exact Content-Length, no 5xx, problem bodies for errors. */
export function assertEveryResponse(method: string, path: string, res: Response): void {
  const where = `${method} ${path} → ${res.status}`
  assert.ok(
    res.status < 500,
    `${where}: no request of this suite may cause a server error; body: ${res.text}`,
  )
  assertCommonHeaders(res, where)
  if (method === 'HEAD' || res.status === 204 || res.status === 304) {
    assert.equal(res.text, '', `${where}: must not have a body`)
  }
  if (res.status === 204) {
    // RFC 9110 §8.6: a server must not send Content-Length in a 204.
    assert.equal(res.header('content-length'), undefined, `${where}: a 204 carries no Content-Length`)
  }
  if (res.text !== '') {
    assert.ok(res.header('content-type'), `${where}: a body needs a Content-Type`)
    assert.equal(
      res.header('content-length'),
      String(Buffer.byteLength(res.text)),
      `${where}: Content-Length must be the exact byte length of the body`,
    )
  }
  if (res.status >= 400) assertProblemShape(res, where, method === 'HEAD')
}

/** An RFC 9457 problem body as CONTRACT.md §5 defines it. */
export function assertProblemShape(res: Response, where: string, headOnly = false): void {
  assert.equal(res.header('content-type'), types.problem, `${where}: errors are application/problem+json`)
  if (headOnly) return
  // biome-ignore lint/suspicious/noExplicitAny: a problem body is inspected field by field
  let body: any
  assert.doesNotThrow(() => {
    body = JSON.parse(res.text)
  }, `${where}: the problem body must be JSON: ${res.text}`)
  assert.ok(body && typeof body === 'object' && !Array.isArray(body), `${where}: a problem is an object`)
  for (const key of ['type', 'title', 'status', 'detail']) {
    assert.ok(key in body, `${where}: the problem lacks "${key}": ${res.text}`)
  }
  const extra = Object.keys(body).filter((k) => !['type', 'title', 'status', 'detail', 'errors'].includes(k))
  assert.deepEqual(extra, [], `${where}: the problem has unexpected members`)
  assert.equal(typeof body.type, 'string', `${where}: type is a string`)
  assert.equal(typeof body.title, 'string', `${where}: title is a string`)
  assert.ok(body.title.length > 0, `${where}: title is not empty`)
  assert.equal(typeof body.detail, 'string', `${where}: detail is a string`)
  assert.ok(body.detail.length > 0, `${where}: detail is not empty`)
  assert.equal(body.status, res.status, `${where}: the problem's status equals the HTTP status`)
  if (body.errors !== undefined) {
    assert.ok(Array.isArray(body.errors), `${where}: errors is an array`)
    for (const e of body.errors) {
      assert.deepEqual(
        Object.keys(e).sort(),
        ['detail', 'pointer'],
        `${where}: each error has pointer and detail`,
      )
      assert.equal(typeof e.pointer, 'string')
      assert.equal(typeof e.detail, 'string')
    }
  }
  assertNoLeak(res.text, where)
}

/** The response is an error of this status; with `pointer`, a validation error that names that field. */
export function assertProblem(res: Response, status: number, pointer?: string): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`)
  assertProblemShape(res, `→ ${res.status}`)
  if (pointer !== undefined) {
    const errors: { pointer: string }[] = res.json().errors ?? []
    assert.ok(
      errors.some((e) => e.pointer === pointer),
      `the problem's errors must point at ${pointer}: ${res.text}`,
    )
  }
}

/**
 * A client for the service that checks the every-response rules on each answer, and that the
 * answer is one the OpenAPI document declares (test/support/openapi-check.ts).
 */
export function checkedClient(service: Pick<TestService, 'request'>): Http {
  return async (method, path, options) => {
    const res = await service.request(method, path, options)
    assertEveryResponse(method, path, res)
    ;(await declaredResponses()).check(method, path, res)
    return res
  }
}

/** Sends a request whose body is streamed (chunked, no Content-Length); the harness sends only whole bodies. */
export async function sendChunked(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: readonly Buffer[],
): Promise<Response> {
  // A stream of unknown length goes out with Transfer-Encoding: chunked.
  const body = Readable.from(chunks)
  const res = await undiciRequest(`${baseUrl}${path}`, { method: method as 'POST', headers, body })
  const response = await readResponse(res)
  assertEveryResponse(method, path, response)
  ;(await declaredResponses()).check(method, path, response)
  return response
}

/** Request headers for a JSON body, with credentials when given. */
export function jsonHeaders(
  authorization?: string,
  contentType: string = types.json,
): Record<string, string> {
  return { 'content-type': contentType, ...(authorization !== undefined && { authorization }) }
}

export interface EventFields {
  title?: unknown
  date?: unknown
  location_id?: unknown
}

// biome-ignore lint/suspicious/noExplicitAny: representations are checked field by field
export type Json = any

/** The exact two links of an event (CONTRACT.md §2). */
export function expectedEventLinks(id: number, locationId: number) {
  return [
    { uri: `/events/${id}`, rel: '/rel/event self edit', type: 'application/vnd.service.event' },
    { uri: `/locations/${locationId}`, rel: '/rel/location', type: 'application/vnd.service.location' },
  ]
}

/** The exact two links of a location (CONTRACT.md §2). */
export function expectedLocationLinks(id: number) {
  return [
    { uri: `/locations/${id}`, rel: '/rel/location self edit', type: 'application/vnd.service.location' },
    { uri: `/events?location_id=${id}`, rel: '/rel/events', type: 'application/vnd.service.events' },
  ]
}

const byUri = (a: { uri: string }, b: { uri: string }) => a.uri.localeCompare(b.uri)

/** The location id an event's /rel/location link points at. */
export function locationIdOf(event: Json): number {
  const link = (event.links as Json[]).find((l) => l.rel === '/rel/location')
  assert.ok(link, `the event has no /rel/location link: ${JSON.stringify(event)}`)
  const m = /^\/locations\/([1-9]\d*)$/.exec(link.uri)
  assert.ok(m?.[1], `the location link is not a location path: ${link.uri}`)
  return Number(m[1])
}

/** An event representation: fields in contract order, exactly the two links, and the given values. */
export function assertEvent(
  event: Json,
  expected: { id?: number; title?: string; date?: string; locationId?: number } = {},
): void {
  assert.deepEqual(Object.keys(event), ['links', 'id', 'title', 'date'], 'event fields, in this order')
  assert.ok(Number.isSafeInteger(event.id) && event.id > 0, `id is a positive integer: ${event.id}`)
  assert.equal(typeof event.title, 'string')
  assert.equal(typeof event.date, 'string')
  assert.match(
    event.date,
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/,
    'date is UTC with a trailing Z',
  )
  assert.ok(!event.date.endsWith('.000Z'), 'milliseconds appear only when they are not zero')
  assert.ok(Array.isArray(event.links) && event.links.length === 2, 'exactly two links')
  for (const link of event.links) {
    assert.deepEqual(Object.keys(link).sort(), ['rel', 'type', 'uri'], 'a link has uri, rel and type')
  }
  const locationId = expected.locationId ?? locationIdOf(event)
  assert.deepEqual(
    [...event.links].sort(byUri),
    expectedEventLinks(event.id, locationId).sort(byUri),
    'the self/edit link and the location link, exactly',
  )
  if (expected.id !== undefined) assert.equal(event.id, expected.id)
  if (expected.title !== undefined) assert.equal(event.title, expected.title)
  if (expected.date !== undefined) assert.equal(event.date, expected.date)
}

let counter = 0
/** A title no other test uses. */
export const uniqueTitle = (prefix = 'Event') => `${prefix} ${++counter}`

/** The service a describe block tests, with the fixtures and reads its tests share. */
export interface ContractService {
  /** The running service; available from the block's `before` hooks on. */
  readonly service: TestService
  /** A client for the service that checks the every-response rules on each answer. */
  readonly http: Http
  /** The location made before the tests (unless `location: false`). */
  readonly locationId: number
  /** Makes a location through the store (not counted as a write over HTTP) and returns its id. */
  newLocation(name?: string, address?: string): Promise<number>
  /** The body of a valid new event: a unique title, a date and `locationId`, then `fields` over them. */
  newEventBody(fields?: Record<string, unknown>): Record<string, unknown>
  /** Creates an event through POST /events (asserting 201), by default at `locationId`; returns it. */
  createEvent(fields?: { title?: string; date?: string; location_id?: number }): Promise<Json>
  /** GET /events/<id>, asserting 200; returns the representation and the ETag. */
  readEvent(id: number): Promise<{ event: Json; etag: string | undefined }>
  /** The collection's total, read through GET /events. */
  totalEvents(): Promise<number>
}

export interface ContractServiceOptions {
  /** Settings the service starts with, e.g. `{ seed: 'true' }` or short timeouts. */
  readonly settings?: ServiceSettings
  /** Whether a location is made before the tests, as `locationId` (default true). */
  readonly location?: boolean
  /** The connection guard's clock, for a test that moves time past its deadlines by hand. */
  readonly connectionClock?: GuardClock
}

/**
 * Registers, in the describe block that calls it, a `before` hook that starts a fresh service on
 * `target` (and makes a location) and an `after` hook that closes it. The properties of the answer
 * are read lazily, so tests and later `before` hooks of the block see what the hook made.
 */
export function contractService(target: StoreTarget, options: ContractServiceOptions = {}): ContractService {
  const { settings, location = true, connectionClock } = options
  let service: TestService | undefined
  let locationId: number | undefined
  const started = (): TestService => {
    if (service === undefined) throw new Error('the service is used before its before() hook has run')
    return service
  }
  const defaultLocation = (): number => {
    if (locationId === undefined) throw new Error('no location was made before the tests (location: false)')
    return locationId
  }
  const newLocation = async (name = 'Town Hall', address = '1 Market Square') =>
    (await started().store.createLocation({ name, address })).id
  before(async () => {
    service = await startService(target, settings, { connectionClock })
    if (location) locationId = await newLocation()
  })
  after(() => service?.close())

  const http = checkedClient({ request: (method, path, options) => started().request(method, path, options) })
  const newEventBody = (fields: Record<string, unknown> = {}) => ({
    title: uniqueTitle(),
    date: '2026-12-04T19:30:00Z',
    ...('location_id' in fields ? {} : { location_id: defaultLocation() }),
    ...fields,
  })
  return {
    get service() {
      return started()
    },
    http,
    get locationId() {
      return defaultLocation()
    },
    newLocation,
    newEventBody,
    async createEvent(fields = {}) {
      const body = newEventBody(fields)
      const res = await http('POST', '/events', { headers: jsonHeaders(started().editorAuth), body })
      assert.equal(res.status, 201, `creating a fixture event: ${res.text}`)
      return res.json()
    },
    async readEvent(id) {
      const res = await http('GET', `/events/${id}`)
      assert.equal(res.status, 200, `reading event ${id}: ${res.text}`)
      return { event: res.json(), etag: res.header('etag') }
    },
    async totalEvents() {
      const res = await http('GET', '/events', { headers: jsonHeaders(), body: { per_page: 1 } })
      assert.equal(res.status, 200, res.text)
      return res.json().total
    },
  }
}

/** The methods of an Allow (or similar list) field, upper-cased and sorted, to compare as sets. */
export function methodSet(field: string | undefined): string[] {
  assert.ok(field !== undefined, 'the field is missing')
  return field
    .split(',')
    .map((m) => m.trim().toUpperCase())
    .filter((m) => m !== '')
    .sort()
}

/** Media types of an Accept-Post / Accept-Patch / Accept-Query field, lower-cased and sorted. */
export function typeSet(field: string | undefined): string[] {
  assert.ok(field !== undefined, 'the field is missing')
  return field
    .split(',')
    .map((t) => (t.split(';')[0] ?? '').trim().toLowerCase())
    .filter((t) => t !== '')
    .sort()
}

/** Parses an RFC 8288 Link field into rel → target; fails on a relation given twice. */
export function parseLinkHeader(field: string | undefined): Map<string, string> {
  assert.ok(field !== undefined, 'the Link field is missing')
  const links = new Map<string, string>()
  for (const m of field.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(m[2] ?? '')
    const names = (rel?.[1] ?? rel?.[2] ?? '').split(/\s+/).filter(Boolean)
    for (const name of names) {
      assert.ok(!links.has(name.toLowerCase()), `relation ${name} appears twice in Link: ${field}`)
      links.set(name.toLowerCase(), m[1] as string)
    }
  }
  return links
}

/**
 * Writes `text` on a new TCP connection and collects every response the server sends until it
 * closes the connection — for what an HTTP client cannot send (slow or malformed requests).
 */
export function rawExchange(port: number, text: string | Buffer): Promise<Response[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connect(port, '127.0.0.1', () => socket.write(text))
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(parseResponses(Buffer.concat(chunks).toString('utf8'))))
  })
}

function parseResponses(data: string): Response[] {
  const responses: Response[] = []
  let rest = data
  while (rest.startsWith('HTTP/')) {
    const end = rest.indexOf('\r\n\r\n')
    if (end < 0) break
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'] ?? 0)
    const bodyBytes = Buffer.from(rest.slice(end + 4), 'utf8').subarray(0, length)
    const text = bodyBytes.toString('utf8')
    rest = rest.slice(end + 4 + text.length)
    responses.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      text,
      json: () => JSON.parse(text),
      header: (name) => headers[name.toLowerCase()],
    })
  }
  assert.equal(rest, '', `unparsed bytes after the responses: ${JSON.stringify(rest.slice(0, 200))}`)
  return responses
}

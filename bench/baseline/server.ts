// The baseline: a framework-free node:http server answering the benchmark's operations with the
// service's bytes (representation, links, Content-Type, ETag, Content-Length) and doing the least
// that takes: prepared statements, a JSON.parse of the body, no logging, no authentication.
// What the service does beyond this is what its ratio to the baseline prices.
//
//   BASELINE_DATABASE_URL=sqlite:/path/events.db PORT=8081 node --import tsx bench/baseline/server.ts
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { encode } from '../../src/http/compression.ts'
import { postgresQueries } from './postgres-queries.ts'
import type { BaselineFilter, BaselineQueries } from './queries.ts'
import {
  collectionJson,
  eventJson,
  eventsType,
  eventType,
  pageEtag,
  pageLinks,
  versionEtag,
} from './represent.ts'
import { sqliteQueries } from './sqlite-queries.ts'

const databaseUrl = process.env.BASELINE_DATABASE_URL ?? ''
const queries: BaselineQueries = databaseUrl.startsWith('sqlite:')
  ? sqliteQueries(databaseUrl.slice('sqlite:'.length))
  : postgresQueries(databaseUrl, Number(process.env.DB_POOL_SIZE ?? 10))

// With BASELINE_TRUST_PROXY=true (set when the run has scenarios through nginx, as the service gets
// TRUST_PROXY), Link and Location are absolute at the address the client used, as the service
// writes them for a trusted peer (src/http/forwarded.ts): every request comes from 127.0.0.1.
const absoluteLinks = process.env.BASELINE_TRUST_PROXY === 'true'
const baseOf = (req: IncomingMessage) =>
  absoluteLinks ? `${req.headers['x-forwarded-proto'] ?? 'http'}://${req.headers.host}` : ''
const rebased = (req: IncomingMessage, links: string) =>
  absoluteLinks ? links.replaceAll('</', `<${baseOf(req)}/`) : links

const eventPath = /^\/events\/([1-9]\d{0,15})$/

// The fields the service puts on every answer of these operations (bench/verify.ts compares them):
// its request id (a client's own when it is plain, else a new UUID), nosniff, Vary, and the
// RateLimit fields of a counter per client address and kind (reads, writes) in a 60 s window,
// counted as the service counts (src/http/rate-limit.ts; the limits are as high as the service's
// in the bench, so nothing is refused).
const window = 60_000
const quota = 10_000_000
const counted = new Map<string, { count: number; resetAt: number }>()
const plainRequestId = /^[A-Za-z0-9._:-]{1,128}$/
function everyAnswer(req: IncomingMessage, kind: 'reads' | 'writes'): Record<string, string> {
  const key = `${kind} ${req.socket.remoteAddress}`
  const now = Date.now()
  let entry = counted.get(key)
  if (!entry || entry.resetAt <= now) {
    entry = { count: 0, resetAt: now + window }
    counted.set(key, entry)
  }
  entry.count++
  const sent = req.headers['x-request-id']
  return {
    'ratelimit-policy': `"${kind}";q=${quota};w=${window / 1000}`,
    ratelimit: `"${kind}";r=${Math.max(0, quota - entry.count)};t=${Math.ceil((entry.resetAt - now) / 1000)}`,
    'x-content-type-options': 'nosniff',
    'x-request-id': typeof sent === 'string' && plainRequestId.test(sent) ? sent : randomUUID(),
    vary: 'Accept, Accept-Encoding',
  }
}

// As the service answers a client that asks (src/http/compression.ts): bodies of 1 KB or more in
// br (quality 4) or gzip (level 4), br when both are named, with the coding in the ETag. The
// service's negotiation weighs q-values; the bench's fields carry none, so a name test is the same.
function coded(
  req: IncomingMessage | undefined,
  body: string,
  headers: Record<string, string>,
): { body: string | Buffer; headers: Record<string, string> } {
  const accepted = req?.headers['accept-encoding']
  if (accepted === undefined || Buffer.byteLength(body) < 1024) return { body, headers }
  const coding = accepted.includes('br') ? 'br' : accepted.includes('gzip') ? 'gzip' : undefined
  if (!coding) return { body, headers }
  // The service's own coding (levels and all): the same bytes on the wire, the same work.
  const bytes = encode(body, coding)
  const etag = headers.etag
  return {
    body: bytes,
    headers: {
      ...headers,
      'content-encoding': coding,
      ...(etag && { etag: `${etag.slice(0, -1)}+${coding}"` }),
    },
  }
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  text: string,
  fields: Record<string, string> = {},
  req?: IncomingMessage,
) {
  const { body, headers } = coded(req, text, fields)
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers })
  res.end(body)
}

const problem = (res: ServerResponse, status: number, title: string, fields: Record<string, string> = {}) =>
  send(
    res,
    status,
    'application/problem+json',
    JSON.stringify({ type: 'about:blank', title, status }),
    fields,
  )

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  if (chunks.length === 0) return {}
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

const numeric = new Set(['page', 'per_page', 'location_id'])
const fromQuery = (params: URLSearchParams) =>
  Object.fromEntries([...params].map(([key, value]) => [key, numeric.has(key) ? Number(value) : value]))

/** The one filter a benchmark request carries, if any (bench/scenarios.ts). */
function filterOf(body: Record<string, unknown>): BaselineFilter | undefined {
  if (typeof body.q === 'string') return { q: body.q }
  if (typeof body.location_id === 'number') return { locationId: body.location_id }
  if (typeof body.from === 'string' && typeof body.to === 'string') {
    return { from: Date.parse(body.from), to: Date.parse(body.to) }
  }
  return undefined
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/'
  const method = req.method ?? 'GET'
  const byId = eventPath.exec(url)
  const fields = everyAnswer(req, method === 'GET' ? 'reads' : 'writes')
  if (byId && method === 'GET') {
    const row = await queries.getEvent(Number(byId[1]))
    if (!row) return problem(res, 404, 'Not Found', fields)
    const etag = versionEtag(row.version)
    const read = { ...fields, etag, 'cache-control': 'no-cache' }
    // A revalidation (bench scenario revalidate-event) sends the one current tag.
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, read)
      return void res.end()
    }
    return send(res, 200, eventType, eventJson(row), read)
  }
  if (byId && method === 'PUT') {
    const body = await readJson(req)
    const date = typeof body?.date === 'string' ? Date.parse(body.date) : Number.NaN
    if (typeof body?.title !== 'string' || Number.isNaN(date))
      return problem(res, 422, 'Unprocessable Content', fields)
    const row = await queries.updateEvent(Number(byId[1]), body.title, date)
    if (!row) return problem(res, 404, 'Not Found', fields)
    return send(res, 200, eventType, eventJson(row), { ...fields, etag: versionEtag(row.version) })
  }
  const [path, query] = url.split('?', 2)
  if (path === '/events' && method === 'GET') {
    // The JSON body is the contract's way; the query string serves bench/verify.ts (fetch sends no GET body).
    const body = query === undefined ? await readJson(req) : fromQuery(new URLSearchParams(query))
    const page = body?.page ?? 1
    const perPage = body?.per_page ?? 20
    if (!body || !Number.isSafeInteger(page) || !Number.isSafeInteger(perPage))
      return problem(res, 400, 'Bad Request', fields)
    const p = page as number
    const n = perPage as number
    const filter = filterOf(body)
    const { total, rows } = filter
      ? await queries.filteredPage(filter, n, (p - 1) * n)
      : await queries.page(n, (p - 1) * n)
    return send(
      res,
      200,
      eventsType,
      collectionJson(total, rows),
      {
        ...fields,
        'cache-control': 'no-cache',
        etag: pageEtag(p, n, total, rows, filter),
        link: rebased(req, pageLinks(p, n, total, filter)),
      },
      req,
    )
  }
  if (url === '/events' && method === 'POST') {
    const body = await readJson(req)
    const date = typeof body?.date === 'string' ? Date.parse(body.date) : Number.NaN
    if (typeof body?.title !== 'string' || Number.isNaN(date) || !Number.isSafeInteger(body.location_id)) {
      return problem(res, 422, 'Unprocessable Content', fields)
    }
    const row = await queries.insertEvent(body.title, date, body.location_id as number)
    return send(res, 201, eventType, eventJson(row), {
      ...fields,
      etag: versionEtag(row.version),
      location: `${baseOf(req)}/events/${row.id}`,
    })
  }
  if (url === '/health/ready') return send(res, 200, 'text/plain', 'ok')
  return problem(res, 404, 'Not Found', fields)
}

const server = createServer((req, res) => {
  handle(req, res).catch(() => {
    if (!res.headersSent) problem(res, 500, 'Internal Server Error')
    else res.destroy()
  })
})
server.listen(Number(process.env.PORT ?? 8081), process.env.HOST ?? '127.0.0.1')

const stop = () => {
  server.close(() => void queries.close().then(() => process.exit(0)))
  server.closeIdleConnections()
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)

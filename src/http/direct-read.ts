// The plainest read of one resource — GET /events/<id> or /locations/<id> with nothing in the
// request but its Accept and a few fields that change nothing — answered straight from Node's
// request, past Fastify's request lifecycle (its request and reply objects, routing, hooks and
// serializer). It is the service's most frequent request, and that lifecycle was about a third of
// its CPU: with it, GET /events/<id> on SQLite ran at ~0.6 of the bench's framework-free baseline
// (bench/README.md).
//
// Only a 200 is answered here, with the fields Fastify's path gives it, in the same order:
// the RateLimit fields, ETag, Cache-Control, Content-Type, the fields of every answer,
// X-Request-Id, Vary, Content-Length; and the access line and metrics are written for it as for
// any other. Everything else goes on to Fastify, before anything is counted or written: a request
// with any other field (credentials, preconditions, a body, Origin, forwarding fields…), HEAD,
// another representation (HTML), a missing resource, an error of the store, a drain, a trusted
// proxy, logging at debug. A read refused by the rate limit goes on too, with its verdict, so
// it is counted once (http/rate-limit.ts). So every rule of the contract keeps one home in the
// Fastify path, and test/contract/direct-read.test.ts holds this one to it, field for field.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import { versionEtag } from '../domain/etag.ts'
import { readingPrimary } from '../store/read-target.ts'
import { type AccessLog, enabled } from './access-log.ts'
import type { RecordAnswer } from './metrics.ts'
import { responseType } from './negotiate.ts'
import { asksForNewest } from './primary-reads.ts'
import type { RateLimiter, Verdict } from './rate-limit.ts'
import { requestIdOf } from './request-id.ts'
import type { ReadById, RouteEntry } from './resource.ts'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** Answers `request` directly, or hands it to `fastify` (at once or after the read). */
export type DirectRead = (request: IncomingMessage, response: ServerResponse, fastify: Handler) => void

export interface DirectReadSettings {
  /** The app's route table (http/resource.ts): its `/<collection>/:id` GETs with a readById. */
  readonly routes: readonly RouteEntry[]
  readonly limit: RateLimiter | undefined
  readonly accessLog: AccessLog
  readonly log: FastifyBaseLogger
  readonly record: RecordAnswer
  /** Fields of every answer (app.ts). */
  readonly everyAnswer: Readonly<Record<string, string>>
  readonly vary: string
  /** Whether the address is a trusted proxy's (TRUST_PROXY), whose requests Fastify reads. */
  readonly trusted: ((address: string) => boolean) | undefined
  /** True once the service drains (its answers then close their connection: Fastify's path). */
  readonly draining: () => boolean
}

interface Target {
  readonly route: string
  readonly produces: readonly string[]
  readonly read: ReadById
}

/**
 * Request fields that change nothing in the answer of a read (or that Node itself handles):
 * a request with any other goes to Fastify.
 */
const plainFields = new Set([
  'host',
  'accept',
  'accept-encoding',
  'accept-language',
  'user-agent',
  'connection',
  'x-request-id',
  'cache-control',
  'pragma',
  'referer',
])

const pathId = /^[1-9]\d{0,15}$/

/** The direct reads of the route table; undefined when it has none. */
export function directReads(settings: DirectReadSettings): DirectRead | undefined {
  const targets = new Map<string, Target>()
  for (const { url, resource } of settings.routes) {
    const collection = /^\/([a-z]+)\/:id$/.exec(url)?.[1]
    const read = resource.GET?.readById
    const produces = resource.GET?.produces
    if (collection && read && produces) targets.set(collection, { route: url, produces, read })
  }
  if (targets.size === 0) return undefined
  const { limit, accessLog, log, record, vary, trusted, draining } = settings
  const everyAnswer = Object.entries(settings.everyAnswer).flat()

  /** The target and id of a plain read, or undefined. */
  function plainRead(request: IncomingMessage) {
    if (request.method !== 'GET' || draining()) return undefined
    const url = request.url ?? ''
    // `/<collection>/<id>`, in origin form: any other request target is Fastify's to judge.
    const slash = url.startsWith('/') ? url.indexOf('/', 1) : -1
    const target = slash > 0 ? targets.get(url.slice(1, slash)) : undefined
    const idText = url.slice(slash + 1)
    if (!target || !pathId.test(idText)) return undefined
    const id = Number(idText)
    if (!Number.isSafeInteger(id)) return undefined
    const headers = request.headers
    for (const name in headers) if (!plainFields.has(name)) return undefined
    // The resource's JSON types only; its HTML view, and a 406, come from Fastify's path.
    const type = responseType(headers.accept, target.produces)
    if (type === undefined || !type.endsWith('json')) return undefined
    const address = request.socket.remoteAddress
    if (trusted && address !== undefined && trusted(address)) return undefined
    // At debug Fastify's path logs each request as it starts (access-log.ts).
    if (enabled(log, 'debug')) return undefined
    // Asking for the newest data sends the read to the primary where there are replicas.
    return { target, id, type, address, newest: asksForNewest(headers['cache-control']) }
  }
  type PlainRead = NonNullable<ReturnType<typeof plainRead>>

  // Answers found in one turn of the event loop are written together at its end (setImmediate),
  // rather than each as soon as it is ready. Under load a turn reads many requests; writing their
  // answers back to back wakes the client (or the proxy) once for the batch instead of once per
  // answer, and keeps the JavaScript of the reads and the kernel's sending apart, each warm in the
  // caches. On the bench machine it halved the CPU of a GET by id (bench/README.md). An answer waits at
  // most for the rest of its turn; with one request in a turn, it is one setImmediate later.
  let batch: (() => void)[] = []
  const writeBatch = () => {
    const writes = batch
    batch = []
    for (const write of writes) write()
  }
  const writeSoon = (write: () => void) => {
    if (batch.push(write) === 1) setImmediate(writeBatch)
  }

  /** A bug: answered by Fastify's path (its 500) while nothing is sent yet. */
  function failed(request: IncomingMessage, response: ServerResponse, fastify: Handler, error: unknown) {
    log.error({ err: error }, 'a direct read failed')
    if (response.headersSent) response.destroy()
    else fastify(request, response)
  }

  function answer(
    request: IncomingMessage,
    response: ServerResponse,
    fastify: Handler,
    { target, id, type, address, newest }: PlainRead,
  ): Promise<void> {
    const started = performance.now()
    const write = (fields: string[], body: string, requestId: string) => {
      response.writeHead(200, fields)
      response.end(body)
      // Written as the answer is handed to the connection, where Fastify's path waits for its
      // 'finish' (a listener per response); an answer to a client already gone is left out there
      // too, since it never finishes.
      if (response.destroyed) return
      const responseTime = performance.now() - started
      accessLog.answered(log, {
        requestId,
        method: 'GET',
        url: request.url ?? '',
        remoteAddress: address,
        statusCode: 200,
        responseTime,
      })
      record('GET', target.route, 200, responseTime)
    }
    const send = (found: { readonly version: number }, verdict: Verdict | undefined) => {
      if (verdict?.refusal) {
        limit?.handOver(request, verdict)
        return fastify(request, response)
      }
      const requestId = requestIdOf(request)
      const body = JSON.stringify(target.read.represent(found))
      // Names and values in turn: writeHead takes them so, and no object is built for them.
      const fields = verdict ? verdict.fields.slice() : []
      fields.push(
        'etag',
        versionEtag(found.version),
        // As conditional.ts: caches may keep it but must revalidate.
        'cache-control',
        'no-cache',
        'content-type',
        type,
      )
      for (const field of everyAnswer) fields.push(field)
      fields.push('x-request-id', requestId, 'vary', vary, 'content-length', String(Buffer.byteLength(body)))
      writeSoon(() => {
        try {
          write(fields, body, requestId)
        } catch (error) {
          failed(request, response, fastify, error)
        }
      })
    }
    return (newest ? readingPrimary(() => target.read.get(id)) : target.read.get(id)).then(
      (found) => {
        // A missing resource is answered (and counted) by Fastify's path.
        if (!found) return fastify(request, response)
        const counted = limit?.countRead(address)
        if (counted instanceof Promise) return counted.then((verdict) => send(found, verdict))
        send(found, counted)
      },
      // The store's trouble: Fastify's path meets it again and answers for it.
      () => fastify(request, response),
    )
  }

  return (request, response, fastify) => {
    const plain = plainRead(request)
    if (!plain) return fastify(request, response)
    answer(request, response, fastify, plain).catch((error: unknown) =>
      failed(request, response, fastify, error),
    )
  }
}

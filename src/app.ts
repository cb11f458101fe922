// buildApp: the whole HTTP service as an un-started Fastify instance (tests build many; main.ts
// owns listening and signals).
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify'
import type { DestinationStream } from 'pino'
import { CredentialVerifier } from './auth/credential-verifier.ts'
import { MemoryAttemptCounter } from './auth/failed-attempts.ts'
import type { Config } from './config.ts'
import { mediaTypes } from './contract/media-types.ts'
import { parseDateTime } from './domain/dates.ts'
import { DomainError, echo } from './domain/errors.ts'
import { AccessLog, requestLogger, serviceLogger } from './http/access-log.ts'
import { answerFields } from './http/answer-fields.ts'
import { registerAnswerSteps } from './http/answer-steps.ts'
import { registerApiDocs } from './http/api-docs.ts'
import { authenticator, basicScheme } from './http/authenticate.ts'
import { hasContent, registerBodyParsers } from './http/body.ts'
import { clientErrorHandler } from './http/client-errors.ts'
import { compressing } from './http/compression.ts'
import { type GuardClock, guardConnections } from './http/connection-guard.ts'
import { registerCors } from './http/cors.ts'
import { changeFeed } from './http/event-feed.ts'
import { proxyTrust, registerForwarded } from './http/forwarded.ts'
import { assetRoutes } from './http/html/assets.ts'
import { registerMetrics } from './http/metrics.ts'
import { badPercentEncoding, registerPercentEncodingCheck } from './http/percent-encoding.ts'
import { registerPipeline } from './http/pipeline.ts'
import { registerPrimaryReads } from './http/primary-reads.ts'
import { problemBody, problemFor } from './http/problems.ts'
import { rateLimiter } from './http/rate-limit.ts'
import { type Counters, FailoverCounters, MemoryCounters } from './http/rate-limit-store.ts'
import { requestIdOf } from './http/request-id.ts'
import { entryPointRoutes } from './http/routes/entry-point.ts'
import { eventRoutes } from './http/routes/events.ts'
import { healthRoutes } from './http/routes/health.ts'
import { locationRoutes } from './http/routes/locations.ts'
import { relationRoutes } from './http/routes/relations.ts'
import { serverFactory } from './http/server-factory.ts'
import { registerSignatures } from './http/signature-auth.ts'
import { requireCheckedBody } from './http/signed-body.ts'
import { loadTlsMaterial, logCertificate, strictTransportSecurity } from './http/tls.ts'
import type { EventStore } from './store/event-store.ts'

export interface AppDependencies {
  readonly config: Config
  readonly store: EventStore
  /** A pino logger; built from config.logLevel when absent. */
  readonly logger?: FastifyBaseLogger
  /** Where the logger built from config.logLevel writes (default: standard output, unbuffered). */
  readonly logStream?: DestinationStream
  /**
   * Prefix of the rate-limit keys in Redis (default `ers:rate:`). Tests give each test its own, so
   * that tests sharing one Redis never share counters; services sharing counters use the same.
   */
  readonly rateLimitKeyPrefix?: string
  /** The connection guard's clock (default: Node's timers); tests move one of their own. */
  readonly connectionClock?: GuardClock
}

export function buildApp({
  config,
  store,
  logger,
  logStream,
  rateLimitKeyPrefix,
  connectionClock,
}: AppDependencies): FastifyInstance {
  const trust = proxyTrust(config.trustProxy)
  // Read and checked before anything else: a bad file stops start-up with one plain line.
  const tls =
    config.tlsCert !== undefined && config.tlsKey !== undefined
      ? loadTlsMaterial({ cert: config.tlsCert, key: config.tlsKey })
      : undefined
  // Fields of every answer. Given to Fastify's reply, not set on Node's response beforehand: a
  // field set there sends every other field of the answer through setHeader one by one (Node's
  // writeHead) instead of its fast path. Answers that skip the hooks (frameworkErrors below)
  // and those written past Fastify (http/client-errors.ts) carry them too.
  const everyAnswer = {
    'x-content-type-options': 'nosniff',
    // RFC 6797 §7.2: HSTS only over a secure transport.
    ...(tls && { 'strict-transport-security': strictTransportSecurity }),
  }

  // The service's own logger writes its access lines directly (http/access-log.ts).
  const own = logger
    ? undefined
    : serviceLogger({
        level: config.logLevel,
        redact: ['req.headers.authorization'],
        ...(logStream && { stream: logStream }),
      })
  const accessLog = new AccessLog(config.accessLog)
  const app = Fastify({
    loggerInstance: logger ?? own?.logger,
    bodyLimit: config.bodyLimit,
    // request.ip, .protocol and .host follow X-Forwarded-* from trusted proxies only (TRUST_PROXY).
    trustProxy: trust ?? false,
    requestIdHeader: false,
    // One access line per response, and request.log's child made only when a request logs
    // something (http/access-log.ts).
    logController: accessLog,
    childLoggerFactory: requestLogger,
    genReqId: requestIdOf,
    // Unknown fields are an error (422), never silently dropped; types are never coerced.
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true },
      // ajv-formats' date-time is looser than RFC 3339 (it takes a space for T, leap seconds and
      // offsets without a colon); the service's own parser decides, so all field errors come at once.
      onCreate: (ajv) =>
        ajv.addFormat('date-time', { type: 'string', validate: (s: string) => parseDateTime(s).ok }),
    },
    forceCloseConnections: 'idle',
    // While draining, a request on an open keep-alive connection is still served (with
    // Connection: close) rather than given Fastify's own non-problem 503 body.
    return503OnClosing: false,
    clientErrorHandler,
    // Malformed percent-encoding in a path parameter (the router's FST_ERR_BAD_URL) is answered as
    // anywhere else in the target (http/percent-encoding.ts); other framework errors as problems.
    // Fastify does not send what this returns.
    frameworkErrors: (error, request, reply) => {
      const answer: FastifyReply = reply.headers(everyAnswer)
      const problem = error.code === 'FST_ERR_BAD_URL' ? badPercentEncoding(request.raw.url ?? '') : error
      answer.send(problemBody(answer, problemFor(problem, request)))
    },
    // find-my-way answers a path parameter longer than maxParamLength with 414, but an id of any
    // length that names nothing is a 404 (CONTRACT.md §5). No parameter can outgrow the request
    // line, which Node bounds with the header section (maxHeaderSize, 431 beyond it).
    routerOptions: { maxParamLength: config.maxHeaderSize },
    // Only tells Fastify to log https:// addresses: the server itself comes from serverFactory.
    https: tls ? {} : null,
    // Plain HTTP/1.1, or HTTPS with HTTP/2 (http/server-factory.ts); the app's logger exists by
    // the first connection.
    serverFactory: serverFactory(config, tls, (object, message) => app.log.debug(object, message)),
  }) as unknown as FastifyInstance
  if (own) accessLog.writesDirectly(app.log, own.write)
  // Deadlines per connection, which Node 20 does not keep reliably, and the cap on connections per
  // client address, trusted proxies exempt (http/connection-guard.ts).
  guardConnections(app.server, {
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    maxConnectionsPerAddress: config.maxConnectionsPerAddress,
    trustedPeer: trust && ((address) => trust(address, 0)),
    log: app.log,
    clock: connectionClock,
  })
  if (tls) logCertificate(app.log, tls.certificate, 'serving HTTPS with this certificate')

  // Bodies are written by JSON.stringify, not by a serializer compiled from the response schemas
  // (fast-json-stringify): represent.ts builds every representation field by field in the
  // contract's order, so the output is the same, and the compiled serializer built it from string
  // pieces, ~27 KB of garbage for a page of 20 events where JSON.stringify makes only its 5 KB
  // (docs/architecture.md). The response schemas still describe the API (OpenAPI) and its tests.
  app.setSerializerCompiler(() => JSON.stringify)

  // The seed sends paging as a JSON body on GET; QUERY is the method made for exactly that.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true })
  app.addHttpMethod('HEAD', { hasBody: true, overrideExisting: true })
  app.addHttpMethod('QUERY', { hasBody: true, overrideExisting: true })

  // First, so that CORS headers reach every answer, 401 and 406 included (http/cors.ts).
  registerCors(app, config.corsOrigins)
  // Link and Location at the proxy's public address, prefix included (http/forwarded.ts).
  const forwardedFields = registerForwarded(app, trust)
  // Malformed percent-encoding anywhere in the target: 400 (http/percent-encoding.ts).
  registerPercentEncodingCheck(app)
  registerBodyParsers(app, [
    mediaTypes.json,
    mediaTypes.event,
    mediaTypes.events,
    mediaTypes.location,
    mediaTypes.locations,
    mediaTypes.mergePatch,
  ])
  // One counter of failed authentications: wrong passwords and failed signatures alike.
  const attempts = new MemoryAttemptCounter(config.authFailuresPerMinute)
  const verifier = new CredentialVerifier(store, {
    ttlMs: config.authCacheTtlMs,
    cost: config,
    attempts,
    onRehashError: (err) => app.log.warn({ err }, 'an upgraded password hash could not be stored'),
  })
  // Schemes in the order they are tried, and their challenges listed (http/authenticate.ts): Basic,
  // then a request signature when KEY_ENCRYPTION_KEY is set.
  const signatures = registerSignatures(app, {
    store,
    keyEncryptionKey: config.keyEncryptionKey,
    trust,
    attempts,
    rememberKeysMs: config.authCacheTtlMs,
  })
  // Reads per address, writes per principal, counted once the pipeline has accepted the request
  // (http/rate-limit.ts).
  const counters = rateLimitCounters(app, config, rateLimitKeyPrefix)
  const limit = rateLimiter({ reads: config.rateLimitReads, writes: config.rateLimitWrites, counters })
  const authenticate = authenticator([basicScheme(verifier), ...signatures.schemes])
  registerPipeline(app, {
    authenticate,
    limit,
    bodySteps: [requireCheckedBody],
  })

  // The last rules of every answer, one onSend hook, in this order (http/answer-steps.ts).
  registerAnswerSteps(app, [
    forwardedFields,
    signatures.challenges,
    answerFields(app, { constant: everyAnswer, cors: config.corsOrigins.length > 0 }),
    // Last, so that it codes the final body and sees the final ETag and Vary.
    config.compression ? compressing : undefined,
  ])

  app.setErrorHandler((error, request, reply) => {
    // Refused before its body was read (401, 406, 415…): the rest of the body may never come, so
    // do not wait for it on this connection.
    if (hasContent(request) && request.body === undefined) reply.header('connection', 'close')
    const unspent = request.unspentNonce
    if (!unspent) return problemBody(reply, problemFor(error, request))
    // A signed write refused before it wrote spends its nonce first: a replay is refused as one.
    request.unspentNonce = null
    const answer = (refusal: unknown) => problemBody(reply, problemFor(refusal, request))
    return unspent(error).then(answer, () => answer(error))
  })
  app.setNotFoundHandler((request, reply) =>
    problemBody(
      reply,
      problemFor(
        new DomainError('not_found', `nothing is at ${echo(request.url.split('?')[0] ?? '')}`),
        request,
      ),
    ),
  )

  entryPointRoutes(app)
  const feed = changeFeed(app, store, {
    heartbeatMs: config.feedHeartbeatMs,
    maxConnections: config.feedMaxConnections,
    maxConnectionsPerAddress: config.feedMaxConnectionsPerAddress,
    maxBufferedBytes: config.feedMaxBufferedBytes,
  })
  eventRoutes(app, store, config.maxPerPage, feed)
  locationRoutes(app, store, config.maxPerPage)
  relationRoutes(app)
  // The stylesheet, script and icon of the HTML view (http/html/).
  assetRoutes(app)
  healthRoutes(app, store, counters)
  if (store.replicaStats?.()) registerPrimaryReads(app)
  registerMetrics(app, store, { feedConnections: feed.open, passwordHashes: () => verifier.passwordHashes })
  // Last: the OpenAPI document is made from every resource registered before it.
  registerApiDocs(
    app,
    authenticate,
    {},
    { maxPerPage: config.maxPerPage, maxHeaderSize: config.maxHeaderSize },
  )
  return app
}

/** The counters of the request rate limits: shared through Redis when REDIS_URL is set. */
function rateLimitCounters(app: FastifyInstance, config: Config, keyPrefix = 'ers:rate:'): Counters {
  const limited = config.rateLimitReads > 0 || config.rateLimitWrites > 0
  const counters =
    limited && config.redisUrl !== undefined
      ? new FailoverCounters({ url: config.redisUrl, keyPrefix, log: app.log })
      : new MemoryCounters()
  app.addHook('onClose', () => counters.close())
  return counters
}

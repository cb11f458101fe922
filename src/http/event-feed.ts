// GET /events with Accept: text/event-stream: the change feed (CONTRACT.md §7). Checks what can be
// refused before the stream starts (a bad Last-Event-ID, paging parameters, a body, too many open
// feeds), then streams: the missed changes from the log, then live ones from the process's one
// reader (feed/change-hub.ts), each exactly once and in number order.
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { mediaTypes } from '../contract/media-types.ts'
import type { Change } from '../domain/change.ts'
import { DomainError } from '../domain/errors.ts'
import { ChangeHub } from '../feed/change-hub.ts'
import { FeedConnections } from '../feed/feed-connections.ts'
import { FeedStream } from '../feed/feed-stream.ts'
import { sseComment, sseMessage, sseRetry } from '../feed/sse.ts'
import type { EventStore } from '../store/event-store.ts'
import { hasContent } from './body.ts'
import { representChange } from './represent.ts'
import type { Body } from './resource.ts'

export interface FeedSettings {
  readonly heartbeatMs: number
  readonly maxConnections: number
  readonly maxConnectionsPerAddress: number
  readonly maxBufferedBytes: number
}

export interface ChangeFeed {
  /** Answers a GET or HEAD of /events that negotiated text/event-stream: the stream is the body. */
  serve(request: FastifyRequest, reply: FastifyReply): Promise<Body>
  /** Feeds open now (for /metrics). */
  readonly open: () => number
}

/** Seconds a client refused for too many feeds is asked to wait. */
const refusedRetryAfter = '5'
/** The reconnection delay an EventSource is told to use after the stream ends. */
const reconnectMs = 2_000
const replayBatch = 500

const renderChange = (change: Change) =>
  sseMessage({ event: change.kind, id: change.seq, data: JSON.stringify(representChange(change)) })

export function changeFeed(app: FastifyInstance, store: EventStore, settings: FeedSettings): ChangeFeed {
  const connections = new FeedConnections({
    maxConnections: settings.maxConnections,
    maxPerAddress: settings.maxConnectionsPerAddress,
    heartbeatMs: settings.heartbeatMs,
  })
  const hub = new ChangeHub(store, renderChange, app.log)
  let draining = false
  // Feeds never finish by themselves: ended here, at the start of a drain, they let the server
  // close within SHUTDOWN_TIMEOUT_MS; clients resume with Last-Event-ID.
  app.addHook('preClose', async () => {
    draining = true
    connections.endAll()
  })
  app.addHook('onClose', () => hub.close())

  /** Replays what the client missed, then lets held live changes through. */
  async function catchUp(stream: FeedStream, after: number, log: FastifyRequest['log']) {
    try {
      const { oldest, newest } = await store.changeLogBounds()
      if (after < oldest - 1) {
        // Some changes it missed are no longer kept: it must read the collection again.
        stream.send(newest, renderChange({ seq: newest, kind: 'reset' }))
      } else {
        for (let from = after; !stream.ended; ) {
          const changes = await store.changesAfter(from, replayBatch)
          for (const change of changes) stream.send(change.seq, renderChange(change))
          const last = changes.at(-1)
          if (!last || changes.length < replayBatch) break
          from = last.seq
          await stream.drained()
        }
      }
      stream.goLive()
    } catch (error) {
      log.warn({ err: error }, 'could not replay the change log; ending the feed')
      stream.end()
    }
  }

  return {
    open: () => connections.size,
    async serve(request, reply) {
      const sent = startingPoint(request)
      const { newest } = await store.changeLogBounds()
      if (sent !== undefined && sent > newest) {
        throw new DomainError('bad_request', `Last-Event-ID ${sent} is newer than any change`)
      }
      // A feed without Last-Event-ID starts after every change committed before it opened, never
      // with one of them: the process's reader may still be behind (it delivers whatever it has
      // not read yet), and the replay from here covers the time until the subscription.
      const after = sent ?? newest
      const asStream = () =>
        // A feed ends only when the server stops or drops it: the connection is not reused. nginx
        // would otherwise buffer the stream (X-Accel-Buffering is its own field for that).
        reply
          .header('cache-control', 'no-store')
          .header('connection', 'close')
          .header('x-accel-buffering', 'no')
          .type(mediaTypes.eventStream)
      if (draining) {
        // Not a 503: a browser's EventSource gives up for good on any answer but 200 (HTML's
        // "fail the connection"), and a page reconnecting on the old connection during a restart
        // would lose its feed. An empty feed that asks for a retry brings it, and the client
        // package, back in a moment, to another instance or the restarted one.
        asStream()
        return sseRetry(reconnectMs)
      }
      const refusal = connections.refusal(request.ip)
      if (refusal) {
        reply.header('retry-after', refusedRetryAfter)
        throw refusal === 'address'
          ? new DomainError('rate_limited', 'too many change feeds are open from this address')
          : new DomainError('overloaded', 'this instance serves as many change feeds as it can')
      }
      asStream()
      // An empty stream: HEAD answers the headers of a feed, with no Content-Length (a feed has none).
      if (request.method === 'HEAD') return Readable.from([])

      let remove = () => {}
      const stream = new FeedStream(
        {
          maxBufferedBytes: settings.maxBufferedBytes,
          // Over HTTP/2, what the feed's own stream holds (its session's socket is shared).
          socketBuffered: () =>
            (request.raw as { stream?: { writableLength: number } }).stream?.writableLength ??
            request.raw.socket?.writableLength ??
            0,
          onEnd: () => {
            hub.unsubscribe(stream)
            remove()
          },
        },
        after,
      )
      remove = connections.add(stream, request.ip)
      try {
        await hub.subscribe(stream)
      } catch (error) {
        stream.end()
        throw error
      }
      // Bytes at once, so the headers go out now (curl -N, EventSource's open event).
      stream.write(sseRetry(reconnectMs) + sseComment('change feed of /events'))
      void catchUp(stream, after, request.log)
      return stream.body
    },
  }
}

/**
 * The number after which to start: Last-Event-ID, or the `lastEventId` query parameter for
 * EventSource polyfills that cannot set the header; undefined: live changes only. The feed takes
 * no paging or filter parameters and no body: the stream is of the whole collection.
 */
function startingPoint(request: FastifyRequest): number | undefined {
  if (hasContent(request)) {
    throw new DomainError('bad_request', 'the change feed takes no request body')
  }
  const { lastEventId, ...others } = request.query as Record<string, unknown>
  const unknown = Object.keys(others)
  if (unknown.length > 0) {
    throw new DomainError(
      'bad_request',
      `the change feed takes no parameter but lastEventId, not ${unknown.join(', ')}`,
    )
  }
  const header = request.headers['last-event-id']
  const sent = [header, lastEventId].filter((v) => v !== undefined && v !== '')
  if (sent.length === 0) return undefined
  if (sent.length === 2 && sent[0] !== sent[1]) {
    throw new DomainError('bad_request', 'Last-Event-ID and lastEventId differ')
  }
  const [text] = sent
  if (typeof text !== 'string' || !/^\d{1,15}$/.test(text)) {
    throw new DomainError('bad_request', 'Last-Event-ID must be the id of a change feed message')
  }
  return Number(text)
}

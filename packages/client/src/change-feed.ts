// The change feed of /events (CONTRACT.md §7) as an async iterator: Server-Sent Events parsed
// by eventsource-parser, each change yielded once and in order. When the connection drops (a
// restart, a proxy's timeout, a drain) it reconnects with Last-Event-ID of the last change it
// yielded, after the `retry:` the service asked for, doubled after each failed attempt up to a
// bound. Stopping it (return(), a `break`, or the AbortSignal) closes the connection and ends
// the iteration without an error.
import { setTimeout as sleep } from 'node:timers/promises'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { mediaTypes } from './contract/media-types.ts'
import type { EventRepresentation, Link } from './contract/representations.ts'
import { ClientError, NetworkError, ProblemError } from './errors.ts'
import type { Session } from './session.ts'
import { type Outgoing, open, refusal } from './transport.ts'

/** One change; `id` is its number in the feed (strictly increasing), not the event's id. */
export type Change =
  | { readonly kind: 'created' | 'updated'; readonly id: number; readonly event: EventRepresentation }
  /** A deleted event: its id and links. */
  | {
      readonly kind: 'deleted'
      readonly id: number
      readonly event: Pick<EventRepresentation, 'links' | 'id'>
    }
  /** Many changes at once (an import), or missed ones no longer kept: read the collection again. */
  | { readonly kind: 'reset'; readonly id: number; readonly links: readonly Link[] }

export interface ChangeFeedOptions {
  /** Start after this change number (as Last-Event-ID); by default with the next change. */
  readonly lastEventId?: number
  /** Stops the feed: the iteration ends, without an error. */
  readonly signal?: AbortSignal
  /** The longest wait between two attempts to reconnect (30 s by default). */
  readonly maxRetryMs?: number
  /** Told before each wait to reconnect, with what ended the last attempt. */
  readonly onReconnect?: (info: { readonly delayMs: number; readonly reason: unknown }) => void
}

const kinds = new Set(['created', 'updated', 'deleted', 'reset'])
/** Until the service says otherwise with `retry:`. */
const firstRetryMs = 1_000

/** `url`: where the feed is (the collection's URL, found in the entry point), until `signal` stops it. */
export function changeFeed(
  session: Session,
  url: (signal: AbortSignal) => Promise<URL>,
  options: ChangeFeedOptions = {},
) {
  const stop = new AbortController()
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal
  const maxRetryMs = options.maxRetryMs ?? 30_000

  async function* run(): AsyncGenerator<Change, void, undefined> {
    let last = options.lastEventId
    let retryMs = firstRetryMs
    let failures = 0
    let target: URL
    try {
      target = await url(signal)
    } catch (error) {
      // Stopped while the entry point was still being read (a service that does not answer).
      if (signal.aborted) return
      throw error
    }
    while (!signal.aborted) {
      const outgoing: Outgoing = {
        method: 'GET',
        url: target,
        accept: mediaTypes.eventStream,
        headers: last === undefined ? {} : { 'last-event-id': String(last) },
        signal,
      }
      let reason: unknown
      try {
        const res = await open(session.transport, outgoing)
        const type = String(res.headers['content-type'] ?? '').split(';')[0]
        if (res.statusCode !== 200 || type !== mediaTypes.eventStream) {
          const error = await refusal(res, outgoing)
          if (!(error instanceof ProblemError) || !worthRetrying(error.status)) throw error
          reason = error
          retryMs = Math.max(retryMs, (error.retryAfter ?? 0) * 1000)
        } else {
          failures = 0
          const pending: Change[] = []
          const parser = createParser({
            onEvent: (message) => {
              const change = toChange(message)
              if (change) pending.push(change)
            },
            onRetry: (ms) => {
              retryMs = ms
            },
          })
          const decoder = new TextDecoder()
          try {
            for await (const chunk of res.body) {
              parser.feed(decoder.decode(chunk as Buffer, { stream: true }))
              for (let change = pending.shift(); change; change = pending.shift()) {
                // Never twice, even if a server sent one again.
                if (last !== undefined && change.id <= last) continue
                last = change.id
                yield change
              }
            }
            reason = new ClientError('the service ended the change feed')
          } catch (error) {
            // A change this client cannot read would come back with every reconnection.
            if (error instanceof ClientError) throw error
            reason = error
          } finally {
            res.body.destroy()
          }
        }
      } catch (error) {
        if (signal.aborted) return
        if (!(error instanceof NetworkError)) throw error
        reason = error
      }
      if (signal.aborted) return
      const delayMs = Math.min(maxRetryMs, retryMs * 2 ** failures)
      failures++
      options.onReconnect?.({ delayMs, reason })
      try {
        await sleep(delayMs, undefined, { signal })
      } catch {
        return
      }
    }
  }

  const changes = run()
  const iterator: AsyncIterableIterator<Change> = {
    next: () => changes.next(),
    // A return() while a read waits would otherwise wait for the next change to arrive.
    return: async () => {
      stop.abort()
      return changes.return(undefined)
    },
    [Symbol.asyncIterator]() {
      return iterator
    },
  }
  return iterator
}

/** 408, 429 and 5xx pass (a restart, a drain, too many feeds for now); others will not. */
const worthRetrying = (status: number) => status === 408 || status === 429 || status >= 500

function toChange(message: EventSourceMessage): Change | undefined {
  const id = Number(message.id)
  if (!message.event || !kinds.has(message.event) || !Number.isSafeInteger(id)) return undefined
  let data: Record<string, unknown>
  try {
    data = JSON.parse(message.data)
  } catch {
    throw new ClientError(`change ${id}: the data is not JSON`)
  }
  if (message.event === 'reset') return { kind: 'reset', id, links: (data.links ?? []) as Link[] }
  return { kind: message.event, id, event: data } as Change
}

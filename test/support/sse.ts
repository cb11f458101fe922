// A small Server-Sent Events client for tests: opens a feed over node:http, parses messages as
// they stream in (HTML Living Standard §9.2.6, "Interpreting an event stream"), and waits for
// conditions with a deadline instead of sleeping.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'

export interface SseEvent {
  readonly event: string
  readonly id: string | undefined
  readonly data: string
}

export interface Feed {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  /** The whole body of an answer that is not a feed (a problem). */
  readonly text: string
  readonly events: SseEvent[]
  readonly comments: string[]
  /** Resolves when the server has ended the stream. */
  readonly ended: Promise<void>
  /** Waits until `holds()` is true, failing with `what` after `timeoutMs`. */
  until(holds: () => boolean, what: string, timeoutMs?: number): Promise<void>
  /** Waits for at least `count` messages and returns them all. */
  take(count: number, timeoutMs?: number): Promise<SseEvent[]>
  close(): void
}

/** Opens GET `path` with Accept: text/event-stream (and `headers`). */
export function openFeed(
  baseUrl: string,
  headers: Record<string, string> = {},
  path = '/events',
  method = 'GET',
): Promise<Feed> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, {
      method,
      headers: { accept: 'text/event-stream', ...headers },
    })
    req.on('error', reject)
    req.on('response', (res: IncomingMessage) => {
      const isFeed = res.statusCode === 200 && res.headers['content-type'] === 'text/event-stream'
      const events: SseEvent[] = []
      const comments: string[] = []
      const waiters = new Set<() => void>()
      const changed = () => {
        for (const waiter of waiters) waiter()
      }
      let text = ''
      let pending = ''
      let fields: { event?: string; id?: string; data: string[] } = { data: [] }
      let ended = false
      const endedPromise = new Promise<void>((done) =>
        res.once('close', () => {
          ended = true
          changed()
          done()
        }),
      )
      res.setEncoding('utf8')
      res.on('error', () => {})
      res.on('data', (chunk: string) => {
        if (!isFeed) {
          text += chunk
          return
        }
        pending += chunk
        let newline = pending.search(/\r\n|\r|\n/)
        while (newline >= 0) {
          const line = pending.slice(0, newline)
          pending = pending.slice(newline + (pending.startsWith('\r\n', newline) ? 2 : 1))
          if (line === '') {
            if (fields.data.length > 0) {
              events.push({ event: fields.event ?? 'message', id: fields.id, data: fields.data.join('\n') })
            }
            fields = { data: [] }
          } else if (line.startsWith(':')) {
            comments.push(line.slice(1).trim())
          } else {
            const colon = line.indexOf(':')
            const name = colon < 0 ? line : line.slice(0, colon)
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
            if (name === 'event') fields.event = value
            else if (name === 'id') fields.id = value
            else if (name === 'data') fields.data.push(value)
          }
          newline = pending.search(/\r\n|\r|\n/)
        }
        changed()
      })
      const until = (holds: () => boolean, what: string, timeoutMs = 5_000) =>
        new Promise<void>((done, fail) => {
          const check = () => {
            if (holds()) {
              finish()
              done()
            } else if (ended) {
              finish()
              fail(new Error(`the feed ended before ${what}; got ${JSON.stringify(events)}`))
            }
          }
          const timer = setTimeout(() => {
            finish()
            fail(new Error(`timed out waiting for ${what}; got ${JSON.stringify(events)}`))
          }, timeoutMs)
          const finish = () => {
            clearTimeout(timer)
            waiters.delete(check)
          }
          waiters.add(check)
          check()
        })
      const feed: Feed = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        get text() {
          return text
        },
        events,
        comments,
        ended: endedPromise,
        until,
        async take(count, timeoutMs) {
          await until(() => events.length >= count, `${count} messages`, timeoutMs)
          return events.slice()
        },
        close: () => req.destroy(),
      }
      if (isFeed) resolve(feed)
      else res.once('end', () => resolve(feed))
    })
    req.end()
  })
}

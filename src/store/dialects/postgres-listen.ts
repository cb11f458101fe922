// Wakes the change feed when any instance commits a change: LISTEN on a connection of its own
// (a pooled connection would be handed to other work and lose the registration), reconnected with
// backoff when it breaks. A notification only says "read the log": the log holds the content, so
// a notification lost while disconnected costs nothing once the reader catches up, which it does
// after every reconnect and on a slow safety poll.
import type pg from 'pg'
import { pgDriver } from './pg-driver.ts'

export interface ListenOptions {
  readonly url: string
  /** The client class that follows a multi-host URL's choice (postgres-host-choice.ts). */
  readonly Client?: typeof pg.Client
  /** false: no connection at all, only the poll (default true). */
  readonly listen?: boolean
  readonly channel: string
  readonly connectionTimeoutMs: number
  /** The safety poll: wakes this often even without a notification. */
  readonly pollMs?: number
  readonly onProblem?: (error: Error) => void
}

const firstRetryMs = 100
const longestRetryMs = 2_000
const defaultPollMs = 5_000

/** Calls `wake` on every notification, after every (re)connection and every `pollMs`; returns stop. */
export function listenForChanges(options: ListenOptions, wake: () => void): () => Promise<void> {
  let stopped = false
  let client: pg.Client | undefined
  let retryMs = firstRetryMs
  let retry: NodeJS.Timeout | undefined

  const connect = async () => {
    retry = undefined
    if (stopped) return
    const next = new (options.Client ?? pgDriver().Client)({
      connectionString: options.url,
      connectionTimeoutMillis: options.connectionTimeoutMs,
      keepAlive: true,
      application_name: 'event-resource-service (change feed)',
    })
    client = next
    let failed = false
    const fail = (error: Error) => {
      if (failed) return
      failed = true
      options.onProblem?.(error)
      next.end().catch(() => {})
      if (!stopped) {
        retry = setTimeout(connect, retryMs)
        retryMs = Math.min(retryMs * 2, longestRetryMs)
      }
    }
    next.on('error', fail)
    next.on('end', () => fail(new Error('the change feed’s LISTEN connection ended')))
    next.on('notification', () => wake())
    try {
      await next.connect()
      await next.query(`listen ${options.channel}`)
      retryMs = firstRetryMs
      // Changes committed while no connection listened are read now.
      wake()
    } catch (error) {
      fail(error as Error)
    }
  }
  const poll = setInterval(wake, options.pollMs ?? defaultPollMs)
  poll.unref()
  if (options.listen === false) queueMicrotask(wake)
  else void connect()

  return async () => {
    stopped = true
    clearInterval(poll)
    clearTimeout(retry)
    await client?.end().catch(() => {})
  }
}

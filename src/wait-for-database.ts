// At start-up the database may not be up yet (a container or a systemd unit starting beside it):
// keep trying with backoff until DB_STARTUP_TIMEOUT_MS, logging each try, and give up early only
// when waiting cannot help (a wrong password, an unwritable SQLite file).
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from './config.ts'
import { explainConnectionFailure } from './store/connection-problems.ts'
import type { EventStore } from './store/event-store.ts'

const firstDelayMs = 250
const maxDelayMs = 5_000

export async function waitForDatabase(
  store: Pick<EventStore, 'ping'>,
  config: Pick<Config, 'databaseUrl' | 'dbStartupTimeoutMs'>,
  log: Pick<FastifyBaseLogger, 'warn'>,
): Promise<void> {
  const deadline = Date.now() + config.dbStartupTimeoutMs
  let delay = firstDelayMs
  for (let attempt = 1; ; attempt++) {
    try {
      await store.ping()
      return
    } catch (error) {
      const problem = explainConnectionFailure(error, config.databaseUrl)
      const left = deadline - Date.now()
      if (!problem?.retryable || left <= 0) throw error
      const wait = Math.min(delay, left)
      log.warn(
        { attempt, retryInMs: wait, reason: problem.reason },
        'database not reachable yet; trying again',
      )
      await new Promise((resolve) => setTimeout(resolve, wait))
      delay = Math.min(delay * 2, maxDelayMs)
    }
  }
}

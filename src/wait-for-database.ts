// At start-up the database may not be up yet (a container or a systemd unit starting beside it),
// or an SQLite file may be locked by an import: keep trying with backoff until
// DB_STARTUP_TIMEOUT_MS, logging each try, and give up early only when waiting cannot help (a
// wrong password, an unwritable SQLite file). Everything retried must be safe to run again.
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from './config.ts'
import { explainConnectionFailure } from './store/connection-problems.ts'

const firstDelayMs = 250
const maxDelayMs = 5_000

export async function untilDatabaseAnswers<T>(
  work: () => Promise<T>,
  config: Pick<Config, 'databaseUrl' | 'dbStartupTimeoutMs'>,
  log: Pick<FastifyBaseLogger, 'warn'>,
): Promise<T> {
  const deadline = Date.now() + config.dbStartupTimeoutMs
  let delay = firstDelayMs
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
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

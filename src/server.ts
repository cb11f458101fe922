// Runs the service until SIGTERM/SIGINT: open the store, wait for the database, prepare it, listen.
// On a signal: stop accepting, let in-flight requests finish within SHUTDOWN_TIMEOUT_MS, close the
// database, exit 0 — or 1 when the deadline cut the drain short; a second signal exits at once.
import type { Server as TlsServer } from 'node:tls'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import { type Config, defaults, redactUrl } from './config.ts'
import { idempotencyLifetimeMs } from './http/idempotency-key.ts'
import { reloadTls } from './http/tls.ts'
import { tlsPolicy } from './http/tls-policy.ts'
import { startMemorySaver } from './memory-saver.ts'
import { prepareDatabase } from './prepare.ts'
import { processLogStream } from './process-logger.ts'
import { startupProblem } from './startup-problems.ts'
import { hostChoiceDescription } from './store/dialects/postgres-host-choice.ts'
import { poolerDescription } from './store/dialects/postgres-pooler.ts'
import { replicaDescription } from './store/dialects/replica-urls.ts'
import type { KyselyStore } from './store/kysely-store.ts'
import { openStore, storeOptions } from './store/open-store.ts'
import { checkStoredKeys } from './stored-keys.ts'
import { untilDatabaseAnswers } from './wait-for-database.ts'

/** Exit status when the drain deadline passed and open requests were cut off. */
export const exitDrainCutShort = 1
/** A repeat of a signal within this long is the same signal delivered twice. */
const duplicateSignalWindowMs = 500
/** How often idempotency keys and nonces past their lifetime, and old changes, are deleted. */
const sweepEveryMs = 10 * 60 * 1000

export async function serve(config: Config): Promise<void> {
  let running: Running
  try {
    const store = openStore(config.databaseUrl, storeOptions(config))
    running = { store, app: buildApp({ config, store, logStream: processLogStream() }) }
  } catch (error) {
    return failedToStart(error, config)
  }
  const { app, store } = running
  // V8's flags are the process's: what this sets reaches the store's reader threads too.
  const memorySaver = startMemorySaver(config.memorySaver, { onChange: (message) => app.log.info(message) })
  // Before anything slow, so that a signal during start-up (a long wait for the database, or
  // the moment the port opens) stops the service cleanly rather than killing it.
  const stopSweeping = () => clearInterval(sweeper)
  let sweeper: NodeJS.Timeout | undefined
  handleSignals(running, config.shutdownTimeoutMs, stopSweeping)
  // With HTTPS, SIGHUP serves a renewed certificate to new connections; without, it keeps its default.
  if (config.tlsCert !== undefined && config.tlsKey !== undefined) {
    const files = { cert: config.tlsCert, key: config.tlsKey }
    const policy = tlsPolicy(config.tlsMinVersion, config.tlsCiphers)
    process.on('SIGHUP', () => reloadTls(app.server as unknown as TlsServer, files, policy, app.log))
  }
  try {
    // Migrations are one transaction, and seeding and the first user happen once: safe to repeat.
    const report = await untilDatabaseAnswers(
      async () => {
        await store.ping()
        const report = await prepareDatabase(store, config)
        await checkStoredKeys(store, config)
        return report
      },
      config,
      app.log,
    )
    app.log.info(memorySaver.description)
    await announce(report, app, config)
    await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    app.log.debug({ err: error }, 'start-up failed')
    await app.close().catch(() => {})
    await store.close().catch(() => {})
    return failedToStart(error, config)
  }
  sweeper = sweepIdempotencyKeys(running, config)
}

/** One plain line a person can act on, not a JSON line holding a stack trace. */
function failedToStart(error: unknown, config: Config): void {
  const problem = startupProblem(error, config)
  process.stderr.write(
    `ers: could not start: ${problem.reason}\n${problem.hint ? `hint: ${problem.hint}\n` : ''}`,
  )
  process.exitCode = 1
}

/**
 * The command that changes admin's password in the database this server uses: with the server's
 * DATABASE_URL in front unless it is the default (its password redacted), since the CLI run
 * without it would act on the default SQLite file instead.
 */
export function changeAdminCommand(databaseUrl: string): string {
  const command = 'npx ers users add admin --role editor'
  if (databaseUrl === defaults.databaseUrl) return command
  return `DATABASE_URL='${redactUrl(databaseUrl)}' ${command}`
}

async function announce(
  report: Awaited<ReturnType<typeof prepareDatabase>>,
  app: FastifyInstance,
  config: Config,
) {
  const change = changeAdminCommand(config.databaseUrl)
  // Says whether the store believes it is behind a transaction pooler, which it cannot tell itself.
  if (/^postgres(ql)?:/.test(config.databaseUrl))
    app.log.info(poolerDescription(config.databasePooler, config.databaseListenUrl))
  const hosts = hostChoiceDescription(config.databaseUrl)
  if (hosts) app.log.info(hosts)
  if (config.databaseReadUrl !== undefined) app.log.info(replicaDescription(config))
  if (report.migrations.length > 0) app.log.info({ migrations: report.migrations }, 'database migrated')
  if (report.seeded) app.log.info('new database filled with sample data')
  if (report.generatedAdminPassword) {
    // Printed once to the terminal, on purpose outside the structured log.
    process.stdout.write(
      `\nCreated user "admin" (editor) with password: ${report.generatedAdminPassword}\n` +
        `It is shown only now. Change it with: ${change}\n\n`,
    )
  } else if (report.createdAdmin) {
    app.log.info('created user "admin" (editor) with the password from ADMIN_PASSWORD')
  } else if (report.adminPasswordIgnored) {
    process.stderr.write(
      'ers: ADMIN_PASSWORD is set, but user "admin" already exists with another password, which is kept. ' +
        `To change it: ${change}\n`,
    )
  }
}

function sweepIdempotencyKeys({ app, store }: Running, config: Config): NodeJS.Timeout {
  const sweep = async () => {
    try {
      const forgotten = await store.forgetIdempotencyKeys(Date.now() - idempotencyLifetimeMs)
      if (forgotten > 0) app.log.info({ forgotten }, 'expired idempotency keys deleted')
      // Off the request path: pairs past their lifetime are refused by `created` alone.
      const nonces = await store.forgetNonces(Date.now())
      if (nonces > 0) app.log.debug({ nonces }, 'expired signature nonces deleted')
      // The change log by age and count: a feed resuming from before what is left gets `reset`.
      const changes = await store.trimChangeLog(
        Date.now() - config.changeLogMaxAgeSeconds * 1000,
        config.changeLogMaxEntries,
      )
      if (changes > 0) app.log.debug({ changes }, 'old changes dropped from the change log')
    } catch (error) {
      app.log.warn({ err: error }, 'could not delete expired idempotency keys; will try again')
    }
  }
  void sweep()
  return setInterval(sweep, sweepEveryMs).unref()
}

interface Running {
  readonly app: FastifyInstance
  readonly store: KyselyStore
}

function handleSignals({ app, store }: Running, shutdownTimeoutMs: number, onStop: () => void) {
  let stoppingSince: number | undefined
  const stop = async (signal: NodeJS.Signals) => {
    if (stoppingSince !== undefined) {
      // Ctrl-C on `npm start` reaches the server twice at once: from the terminal (to the whole
      // process group) and forwarded by npm. Only a later signal is a person asking to hurry.
      if (Date.now() - stoppingSince < duplicateSignalWindowMs) return
      app.log.warn({ signal }, 'second signal while draining: exiting at once')
      process.exit(128 + signalNumber(signal))
    }
    stoppingSince = Date.now()
    onStop()
    app.log.info({ signal, deadlineMs: shutdownTimeoutMs }, 'shutting down: finishing in-flight requests')
    let cutShort = false
    const deadline = setTimeout(() => {
      cutShort = true
      app.log.error(
        { deadlineMs: shutdownTimeoutMs },
        'drain deadline passed: closing the remaining connections',
      )
      app.server.closeAllConnections()
    }, shutdownTimeoutMs)
    try {
      await app.close()
      clearTimeout(deadline)
      await store.close()
      app.log.info(cutShort ? 'stopped after cutting the drain short' : 'stopped')
      process.exit(cutShort ? exitDrainCutShort : 0)
    } catch (error) {
      app.log.error({ err: error }, 'unclean shutdown')
      process.exit(1)
    }
  }
  process.on('SIGTERM', (signal) => void stop(signal))
  process.on('SIGINT', (signal) => void stop(signal))
}

function signalNumber(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 2 : 15
}

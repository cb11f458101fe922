// Runs the service until SIGTERM/SIGINT: open the store, prepare it, listen; on a signal stop
// accepting, let in-flight requests finish, close the database, exit 0.
import { buildApp } from './app.ts'
import type { Config } from './config.ts'
import { prepareDatabase } from './prepare.ts'
import { openStore, storeOptions } from './store/open-store.ts'

export async function serve(config: Config): Promise<void> {
  const store = openStore(config.databaseUrl, storeOptions(config))
  const app = buildApp({ config, store })
  try {
    const report = await prepareDatabase(store, config)
    if (report.migrations.length > 0) app.log.info({ migrations: report.migrations }, 'database migrated')
    if (report.seeded) app.log.info('new database filled with sample data')
    if (report.generatedAdminPassword) {
      // Printed once to the terminal, on purpose outside the structured log.
      process.stdout.write(
        `\nCreated user "admin" (editor) with password: ${report.generatedAdminPassword}\n` +
          'It is shown only now. Change it with: ers users add admin --role editor\n\n',
      )
    } else if (report.createdAdmin) {
      app.log.info('created user "admin" (editor) with the password from ADMIN_PASSWORD')
    }
    await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    app.log.fatal({ err: error }, 'could not start')
    await app.close().catch(() => {})
    await store.close().catch(() => {})
    process.exitCode = 1
    return
  }

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'shutting down: finishing in-flight requests')
    try {
      await app.close()
      await store.close()
      app.log.info('stopped')
      process.exit(0)
    } catch (error) {
      app.log.error({ err: error }, 'unclean shutdown')
      process.exit(1)
    }
  }
  process.once('SIGTERM', () => void stop('SIGTERM'))
  process.once('SIGINT', () => void stop('SIGINT'))
}

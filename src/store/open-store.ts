// Chooses the store from the database URL.
import type { Config } from '../config.ts'
import { openPostgres, type PostgresOptions } from './dialects/postgres.ts'
import { replicaUrls } from './dialects/replica-urls.ts'
import { openSqlite, type SqliteOptions } from './dialects/sqlite.ts'
import { sqliteBackup } from './dialects/sqlite-backup.ts'
import { KyselyStore } from './kysely-store.ts'

export interface StoreOptions {
  /** Pool and timeout settings, used when the URL selects PostgreSQL. */
  readonly postgres?: PostgresOptions
  /** Lock waits and the reader threads, used when the URL selects SQLite. */
  readonly sqlite?: SqliteOptions
}

/** The store settings of a configuration. */
export function storeOptions(
  config: Pick<
    Config,
    | 'dbPoolSize'
    | 'costlyReadConnections'
    | 'costlyReadQueueMs'
    | 'dbConnectTimeoutMs'
    | 'dbStatementTimeoutMs'
    | 'databaseListenUrl'
    | 'databasePooler'
    | 'databaseReadUrl'
    | 'replicaMaxLagMs'
    | 'replicaWaitMs'
    | 'sqliteBusyWaitMs'
    | 'readBudgetMs'
    | 'readWorkers'
    | 'sqliteCacheKib'
  >,
): StoreOptions {
  return {
    postgres: {
      poolSize: config.dbPoolSize,
      costlyReadConnections: config.costlyReadConnections,
      costlyReadQueueMs: config.costlyReadQueueMs,
      readBudgetMs: config.readBudgetMs,
      connectionTimeoutMs: config.dbConnectTimeoutMs,
      statementTimeoutMs: config.dbStatementTimeoutMs,
      listenUrl: config.databaseListenUrl,
      pooler: config.databasePooler,
      replicas: config.databaseReadUrl
        ? {
            urls: replicaUrls(config.databaseReadUrl),
            maxLagMs: config.replicaMaxLagMs,
            waitMs: config.replicaWaitMs,
          }
        : undefined,
    },
    sqlite: {
      busyWaitMs: config.sqliteBusyWaitMs,
      readBudgetMs: config.readBudgetMs,
      readWorkers: config.readWorkers,
      cacheKib: config.sqliteCacheKib,
    },
  }
}

export function openStore(databaseUrl: string, options: StoreOptions = {}): KyselyStore {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length)
    return new KyselyStore({ ...openSqlite(path, options.sqlite), backup: sqliteBackup(path) })
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl))
    return new KyselyStore(openPostgres(databaseUrl, options.postgres))
  throw new Error(`unsupported database URL: ${databaseUrl.replace(/\/\/[^@/]*@/, '//…@')}`)
}

// Chooses the store from the database URL.
import type { Config } from '../config.ts'
import { openPostgres, type PostgresOptions } from './dialects/postgres.ts'
import { openSqlite } from './dialects/sqlite.ts'
import { KyselyStore } from './kysely-store.ts'

export interface StoreOptions {
  /** Pool and timeout settings, used when the URL selects PostgreSQL. */
  readonly postgres?: PostgresOptions
}

/** The store settings of a configuration. */
export function storeOptions(
  config: Pick<Config, 'dbPoolSize' | 'dbConnectTimeoutMs' | 'dbStatementTimeoutMs'>,
): StoreOptions {
  return {
    postgres: {
      poolSize: config.dbPoolSize,
      connectionTimeoutMs: config.dbConnectTimeoutMs,
      statementTimeoutMs: config.dbStatementTimeoutMs,
    },
  }
}

export function openStore(databaseUrl: string, options: StoreOptions = {}): KyselyStore {
  if (databaseUrl.startsWith('sqlite:'))
    return new KyselyStore(openSqlite(databaseUrl.slice('sqlite:'.length)))
  if (/^postgres(ql)?:\/\//.test(databaseUrl))
    return new KyselyStore(openPostgres(databaseUrl, options.postgres))
  throw new Error(`unsupported database URL: ${databaseUrl.replace(/\/\/[^@/]*@/, '//…@')}`)
}

// Chooses the store from the database URL.
import { openSqlite } from './dialects/sqlite.ts'
import { KyselyStore } from './kysely-store.ts'

export function openStore(databaseUrl: string): KyselyStore {
  if (databaseUrl.startsWith('sqlite:'))
    return new KyselyStore(openSqlite(databaseUrl.slice('sqlite:'.length)))
  throw new Error(`unsupported database URL: ${databaseUrl.replace(/\/\/[^@/]*@/, '//…@')}`)
}

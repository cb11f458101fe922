// Kysely's SQLite dialect, with one change: a statement run outside a transaction that meets
// SQLITE_BUSY is retried with timers (sqlite-busy.ts) instead of failing or sleeping in
// better-sqlite3's busy handler.
import type Sqlite from 'better-sqlite3'
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteDialect,
  SqliteDriver,
} from 'kysely'
import { type BusyWait, whileBusy } from './sqlite-busy.ts'

/**
 * Such a statement is a read in practice: every write of the store begins with BEGIN IMMEDIATE,
 * sent past this driver (see sqlite.ts). In WAL mode a read meets SQLITE_BUSY only in edge cases
 * (another connection recovering the WAL after a crash, or changing the journal mode), when every
 * statement would fail alike; so the retry keeps Kysely's one connection while it pauses, which
 * costs the other statements nothing. Inside a transaction nothing is retried here: the
 * transaction as a whole would have to be.
 */
export class RetryingSqliteDialect extends SqliteDialect {
  readonly #database: Sqlite.Database
  readonly #wait: BusyWait

  constructor(database: Sqlite.Database, wait: BusyWait) {
    super({ database })
    this.#database = database
    this.#wait = wait
  }

  override createDriver(): Driver {
    return new RetryingSqliteDriver(this.#database, this.#wait)
  }
}

class RetryingSqliteDriver extends SqliteDriver {
  readonly #database: Sqlite.Database
  readonly #wait: BusyWait
  #connection: DatabaseConnection | undefined

  constructor(database: Sqlite.Database, wait: BusyWait) {
    super({ database })
    this.#database = database
    this.#wait = wait
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    // The base driver hands out its single connection once its mutex is free.
    const connection = await super.acquireConnection()
    this.#connection ??= this.#retrying(connection)
    return this.#connection
  }

  #retrying(connection: DatabaseConnection): DatabaseConnection {
    const database = this.#database
    const wait = this.#wait
    return {
      executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        if (database.inTransaction) return connection.executeQuery<R>(query)
        return whileBusy(async () => connection.executeQuery<R>(query), wait)
      },
      streamQuery<R>(query: CompiledQuery, chunkSize?: number) {
        return connection.streamQuery<R>(query, chunkSize)
      },
    }
  }
}

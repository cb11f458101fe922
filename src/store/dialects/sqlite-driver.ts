// Kysely's SQLite dialect, with two changes: a statement run outside a transaction that meets
// SQLITE_BUSY is retried with timers (sqlite-busy.ts) instead of failing or sleeping in
// better-sqlite3's busy handler; and prepared statements are kept by SQL text, where Kysely's own
// driver prepares every query afresh (~118 µs against ~11 µs for a kept one: ARCHITECTURE.md).
import type Sqlite from 'better-sqlite3'
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteDialect,
  SqliteDriver,
} from 'kysely'
import { type BusyWait, isBusy, whileBusy } from './sqlite-busy.ts'

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
  readonly #statements: StatementCache

  constructor(database: Sqlite.Database, wait: BusyWait, statements: StatementCache) {
    super({ database })
    this.#database = database
    this.#wait = wait
    this.#statements = statements
  }

  override createDriver(): Driver {
    return new RetryingSqliteDriver(this.#database, this.#wait, this.#statements)
  }
}

/**
 * A read run at once on the connection, past Kysely's executor and its mutex (the hot reads: an
 * event, a page, a user): its rows, or undefined where it must go through Kysely instead. That is
 * while a write transaction is open on the connection (between its statements, which await, a
 * read from elsewhere must neither see its uncommitted rows nor run inside it), and when the file
 * is locked (SQLITE_BUSY: whileBusy retries it on timers). Otherwise nothing else can be using the
 * connection: each statement runs to its end synchronously. Saves ~3 µs of a GET by id.
 */
export function readNow(database: Sqlite.Database, statements: StatementCache) {
  return <R>({ sql, parameters }: CompiledQuery<R>): R[] | undefined => {
    if (database.inTransaction) return undefined
    try {
      return statements.get(sql).all(parameters) as R[]
    } catch (error) {
      if (isBusy(error)) return undefined
      throw error
    }
  }
}

class RetryingSqliteDriver extends SqliteDriver {
  readonly #database: Sqlite.Database
  readonly #wait: BusyWait
  readonly #statements: StatementCache
  #connection: DatabaseConnection | undefined

  constructor(database: Sqlite.Database, wait: BusyWait, statements: StatementCache) {
    super({ database })
    this.#database = database
    this.#wait = wait
    this.#statements = statements
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
    const statements = this.#statements
    // As Kysely's SqliteConnection.executeQuery does, with the statement kept.
    const run = <R>({ sql, parameters }: CompiledQuery): QueryResult<R> => {
      const statement = statements.get(sql)
      if (statement.reader) return { rows: statement.all(parameters) as R[] }
      const { changes, lastInsertRowid } = statement.run(parameters)
      return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] }
    }
    return {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        if (database.inTransaction) return run<R>(query)
        return whileBusy(async () => run<R>(query), wait)
      },
      streamQuery<R>(query: CompiledQuery, chunkSize: number) {
        return connection.streamQuery<R>(query, chunkSize)
      },
    }
  }
}

// Enough for every statement the store writes more than once (a few dozen shapes; IN lists of
// preconditions and import batches vary in length, so a bound keeps rare shapes from piling up).
export const maxKeptStatements = 256

/**
 * better-sqlite3 statements by SQL text, at most `max`; past it, one that has not been used since
 * it was last passed over goes (the "second chance" approximation of least recently used). A hit
 * only marks its statement used: moving it to the back of the map on every read, as an exact LRU
 * order needs, cost a delete and an insert on each hot read. A kept statement stays valid across
 * schema changes: SQLite re-prepares it when the schema it was built on has changed. Only one
 * statement runs at a time on the connection (Kysely's mutex), and `all`/`run` finish before
 * returning, so one statement object is never in use twice at once.
 */
export class StatementCache {
  readonly #kept = new Map<string, { readonly statement: Sqlite.Statement; used: boolean }>()
  constructor(
    private readonly database: Sqlite.Database,
    private readonly max: number,
  ) {}

  get(sql: string): Sqlite.Statement {
    const kept = this.#kept.get(sql)
    if (kept) {
      kept.used = true
      return kept.statement
    }
    const statement = this.database.prepare(sql)
    if (this.#kept.size >= this.max) this.#dropOne()
    this.#kept.set(sql, { statement, used: false })
    return statement
  }

  /** Drops the oldest statement unused since it was last passed over; used ones go to the back, unmarked. */
  #dropOne(): void {
    // Map iteration also visits what is re-inserted during it, each unmarked: it ends within two rounds.
    for (const [sql, kept] of this.#kept) {
      this.#kept.delete(sql)
      if (!kept.used) return
      kept.used = false
      this.#kept.set(sql, kept)
    }
  }
}

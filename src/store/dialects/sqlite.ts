// SQLite through better-sqlite3: one file, WAL, synchronous=FULL (a 2xx survives a power cut).
// Other processes share the file (the CLI beside a running server): their write lock is waited for
// with timers, never inside better-sqlite3, whose busy handler would freeze the event loop.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Sqlite from 'better-sqlite3'
import { Kysely } from 'kysely'
import type { MigrationProvider, MigrationResultSet } from 'kysely/migration'
import { DomainError } from '../../domain/errors.ts'
import type { DialectConnection } from '../dialect-connection.ts'
import type { Executor } from '../executor.ts'
import { unknownLocation } from '../location-references.ts'
import { migratorFor } from '../migrator.ts'
import type { Database } from '../schema.ts'
import { isBusy, whileBusy } from './sqlite-busy.ts'
import { maxKeptStatements, RetryingSqliteDialect, readNow, StatementCache } from './sqlite-driver.ts'
import { cacheSize } from './sqlite-reader-protocol.ts'
import { SqliteReaders } from './sqlite-readers.ts'
import { trigramContains } from './sqlite-trigram.ts'

export interface SqliteOptions {
  /**
   * How long a write (or, rarely, a read) waits for another connection's lock before failing with
   * `unavailable`, in ms (default 2000). The wait never blocks the event loop.
   */
  readonly busyWaitMs?: number
  /** How long a migration run waits for the write lock, in ms (default 30000). */
  readonly migrationWaitMs?: number
  /** How long a read off the event loop may take, its wait for a reader included, in ms (default 3000). */
  readonly readBudgetMs?: number
  /** Reader threads for the reads off the event loop (default 1). */
  readonly readWorkers?: number
  /** The page cache of each connection, the readers' included, in KiB (default 2048). */
  readonly cacheKib?: number
}

export const sqliteDefaults = Object.freeze({
  busyWaitMs: 2_000,
  migrationWaitMs: 30_000,
  readBudgetMs: 3_000,
  readWorkers: 1,
  cacheKib: 2_048,
})

// Opening and the pragmas below run once, before anything is served: there a synchronous wait
// for a lock (another process setting up the same new file) harms no one.
const openWaitMs = 5_000

export function openSqlite(path: string, options: SqliteOptions = {}): DialectConnection {
  const settings = { ...sqliteDefaults, ...options }
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const database = new Sqlite(path, { timeout: openWaitMs })
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = FULL')
  database.pragma('foreign_keys = ON')
  // From here on a lock fails at once with SQLITE_BUSY, and whileBusy pauses with timers.
  database.pragma('busy_timeout = 0')
  database.pragma(cacheSize(settings.cacheKib))
  const statements = new StatementCache(database, maxKeptStatements)
  // A database in memory belongs to this one connection: no thread can open it, so its costly
  // reads stay on the event loop (such stores are for tests and demonstrations).
  const readers =
    path === ':memory:'
      ? undefined
      : new SqliteReaders({
          path,
          busyTimeoutMs: settings.busyWaitMs,
          cacheKib: settings.cacheKib,
          threads: settings.readWorkers,
          budgetMs: settings.readBudgetMs,
        })
  const db = new Kysely<Database>({
    dialect: new RetryingSqliteDialect(database, { waitMs: settings.busyWaitMs, what: 'a read' }, statements),
  })

  /**
   * Runs `work` holding Kysely's single connection inside BEGIN IMMEDIATE … COMMIT. The Kysely
   * SQLite driver serialises all use of that connection, so holding it for the whole transaction
   * is enough within a process; IMMEDIATE takes the file's write lock up front, so a second
   * process cannot make the transaction fail half-way with SQLITE_BUSY. While another process
   * holds the lock, BEGIN fails, the connection is released (reads go on) and whileBusy retries.
   */
  function inWriteTransaction<T>(work: (conn: Kysely<Database>) => Promise<T>, what: string, waitMs: number) {
    return whileBusy(
      () =>
        db.connection().execute(async (conn) => {
          // Straight to better-sqlite3, past the driver's retry, which would pause holding the
          // connection and so stall this process's reads for as long as the lock is held.
          database.exec('begin immediate')
          try {
            const result = await work(conn)
            database.exec('commit')
            return result
          } catch (error) {
            // SQLite has already rolled back after some errors (SQLITE_FULL, SQLITE_IOERR…); a
            // second ROLLBACK would fail and hide the error that matters.
            if (database.inTransaction) database.exec('rollback')
            throw error
          }
        }),
      { waitMs, what },
    )
  }

  return {
    db,
    flavour: {
      maxParameters: 32_766,
      offsetRowsPerBucketRow: 30,
      schema: 'sqlite',
      importCommits: 'chunks',
      rowLocks: false,
      changeNumbering: 'in-write',
      contains: trigramContains,
    },
    write: (work) =>
      inWriteTransaction((conn) => work(conn as Executor), 'a write transaction', settings.busyWaitMs),
    migrate: (provider) =>
      migrate(db, provider, (run) => inWriteTransaction(run, 'migrations', settings.migrationWaitMs)),
    watch: (wake) => watchDataVersion(database, wake),
    translate,
    readNow: readNow(database, statements),
    ...(readers && { readCostly: (query) => readers.read(query), readerStats: () => readers.stats() }),
    close: async () => {
      await readers?.close()
      await db.destroy()
    },
  }
}

/** How often another process's commits are looked for (the CLI writing beside a server). */
const dataVersionPollMs = 1_000

/**
 * SQLite has no notifications between processes. `PRAGMA data_version` changes when another
 * connection commits to the file (not on this connection's own commits, which the store announces
 * itself): a read of one page header, cheap enough to ask every second.
 */
function watchDataVersion(database: Sqlite.Database, wake: () => void): () => Promise<void> {
  const version = () => (database.open ? database.pragma('data_version', { simple: true }) : undefined)
  let seen = version()
  const poll = setInterval(() => {
    try {
      const now = version()
      if (now === seen) return
      seen = now
    } catch {
      // The file is locked for a moment: look again at the next tick, waking now to be safe.
    }
    wake()
  }, dataVersionPollMs)
  poll.unref()
  return async () => clearInterval(poll)
}

/**
 * Kysely's SqliteAdapter neither wraps a migration run in a transaction nor locks it. Here the
 * whole run (every pending migration and its kysely_migration row) is one IMMEDIATE transaction:
 * it holds the write lock, so two processes migrating one file take turns, and the second finds
 * nothing left to do; and a run that fails rolls back whole, leaving the schema as it was before
 * the run, with nothing recorded. SQLite's DDL is transactional, whatever the adapter says.
 */
async function migrate(
  db: Kysely<Database>,
  provider: MigrationProvider,
  exclusively: (run: (conn: Kysely<Database>) => Promise<MigrationResultSet>) => Promise<MigrationResultSet>,
): Promise<MigrationResultSet> {
  // The usual case, a schema already up to date, needs only reads: no write lock, so a server
  // still starts while an import holds the lock. (The migrator's own checks still run.)
  const unlocked = migratorFor(db, provider)
  if ((await unlocked.getMigrations()).every((m) => m.executedAt !== undefined)) {
    return unlocked.migrateToLatest()
  }
  return exclusively(async (conn) => {
    // `conn` is bound to the connection that holds the transaction; the migrator's own
    // conn.connection() calls reuse it.
    const result = await migratorFor(conn, provider).migrateToLatest()
    if (result.error === undefined) return result
    // Thrown so that the transaction rolls back, then given back the way Kysely gives it.
    throw new RolledBack(result)
  }).catch((error: unknown) => {
    if (!(error instanceof RolledBack)) throw error
    const { error: cause, results = [] } = error.result
    // Migrations reported done were undone with the rest.
    return {
      error: cause,
      results: results.map((r) => (r.status === 'Success' ? { ...r, status: 'NotExecuted' as const } : r)),
    }
  })
}

class RolledBack extends Error {
  constructor(readonly result: MigrationResultSet) {
    super('migration run rolled back')
  }
}

function translate(error: unknown): unknown {
  // Writers are serialised, and every write checks the location first (a delete counts its
  // events), so the key between events and locations holds before SQLite would have to say so;
  // should it ever fail, it is an event naming a location that is not there.
  if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return unknownLocation()
  if (error instanceof DomainError || !isBusy(error)) return error
  // A lock met where no retry applies (inside a transaction): still the client's "try again".
  const unavailable = new DomainError(
    'unavailable',
    'the database is locked by another process; try again shortly',
  )
  unavailable.cause = error
  return unavailable
}

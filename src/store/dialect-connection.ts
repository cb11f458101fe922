// What a dialect (dialects/sqlite.ts, dialects/postgres.ts) hands the store: its connection, how a
// write transaction begins, its SQL flavour, and the capabilities only some dialects have. A module
// of its own, so that the dialects and the store's modules import it and not the store.
import type { CompiledQuery, Kysely } from 'kysely'
import type { MigrationProvider, MigrationResultSet } from 'kysely/migration'
import type { BackupReport, PoolStats, ReaderStats, ReplicaStats } from './event-store.ts'
import type { Executor } from './executor.ts'
import type { SqlFlavour } from './flavour.ts'
import type { Database } from './schema.ts'

export interface DialectConnection {
  readonly db: Kysely<Database>
  readonly flavour: SqlFlavour
  /**
   * Runs `work` in one transaction. Only some dialects serialise writers (SQLite holds the write
   * lock from the first statement; PostgreSQL runs READ COMMITTED): a check-then-write must be
   * one conditional statement, rest on a unique key, or take `exclusive` first.
   */
  write<T>(work: (trx: Executor) => Promise<T>): Promise<T>
  /**
   * Inside `write`, waits for and holds an exclusive lock on `topic` until the transaction ends.
   * Absent where `write` already serialises every writer (SQLite's BEGIN IMMEDIATE).
   */
  exclusive?(trx: Executor, topic: string): Promise<void>
  /**
   * Runs every pending migration of `provider` as one unit, taking whatever lock keeps two
   * processes from migrating at once; on failure returns the error with nothing applied.
   */
  migrate(provider: MigrationProvider): Promise<MigrationResultSet>
  /**
   * After a write that logged a change has committed, tells every process watching (`watch`), in
   * the background; a lost notification is made up by `watch`'s periodic wake. Absent where
   * `watch` polls instead.
   */
  notify?(): void
  /**
   * Calls `wake` whenever another process (another instance, the CLI) may have committed a change,
   * and now and then regardless; returns how to stop.
   */
  watch?(wake: () => void): () => Promise<void>
  /** Turns a driver error into a DomainError where it means something to a client. */
  translate(error: unknown): unknown
  /**
   * True when a write failed only because of the transactions beside it (PostgreSQL: a deadlock
   * or a serialization failure), so that the same work, run again whole, may well succeed.
   */
  isConflict?(error: unknown): boolean
  /**
   * Runs a read at once, past Kysely, where the dialect can do that safely (SQLite's synchronous
   * driver); undefined when it cannot now, and the read goes through Kysely.
   */
  readNow?<R>(query: CompiledQuery<R>): R[] | undefined
  /**
   * Runs one statement on a connection of the dialect's own pool (the primary), past Kysely's
   * executor (its layers of async functions were ~5 µs of CPU per PostgreSQL read, and ~9 KB of
   * garbage per one-statement write, sampled): a read, or a write that is its own transaction.
   * Absent where statements go through Kysely.
   */
  runPooled?<R>(query: CompiledQuery<R>): Promise<R[]>
  /**
   * Runs a plain read (of events and locations, outside a write: store/read-target.ts) where the
   * dialect chooses, a replica when it has a fresh one (postgres-replicas.ts); absent: runPooled.
   */
  readPlain?<R>(query: CompiledQuery<R>): Promise<R[]>
  /** Where plain reads went, where the dialect reads from replicas. */
  replicaStats?(): ReplicaStats
  /**
   * Runs a read whose cost no index bounds apart from the cheap reads, under a time budget
   * (`too_costly` past it): SQLite files in a reader thread, off the event loop; PostgreSQL on a
   * bounded share of connections of its own. Absent where such reads cannot leave the cheap
   * reads' way (SQLite in memory).
   */
  readCostly?<R>(query: CompiledQuery<R>): Promise<R[]>
  /** Figures of the costly reads, where the dialect runs them apart. */
  readerStats?(): ReaderStats
  /**
   * After a bulk load has committed, what keeps reads as fast as before it, where the dialect
   * needs something done.
   */
  afterBulkLoad?(): Promise<void>
  /** Connection pool figures, where the dialect has a pool. */
  poolStats?(): PoolStats
  /** Copies the database to a new file while it serves, where the dialect can (see EventStore). */
  backup?(destination: string): Promise<BackupReport>
  close(): Promise<void>
}

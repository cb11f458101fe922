// PostgreSQL through a `pg` pool. Any number of service instances may share one database, so
// nothing here relies on process memory: conditional writes are single statements, migrations
// hold Kysely's advisory lock, and one-time set-up is decided by unique keys.
import { type CompiledQuery, Kysely, PostgresDialect, type SqlBool, sql } from 'kysely'
import pg from 'pg'
import { DomainError } from '../../domain/errors.ts'
import { changeChannel } from '../change-log.ts'
import type { DialectConnection } from '../dialect-connection.ts'
import { substringIndexName } from '../flavour.ts'
import { locationInUse, unknownLocation } from '../location-references.ts'
import type { Database } from '../schema.ts'
import { costlyReads } from './postgres-costly.ts'
import { listenForChanges } from './postgres-listen.ts'
import { migrateInTransaction, type Pooler, pollWithoutListenMs, sessionSettings } from './postgres-pooler.ts'
import { namingPool } from './postgres-prepared.ts'

export interface PostgresOptions {
  /** Most connections this process opens for requests, the costly reads' share included (default 10). */
  readonly poolSize?: number
  /**
   * Connections set apart for costly reads (filtered pages), out of `poolSize`; 0: a quarter of it,
   * at least 1 (default 0). The rest keep at least one connection.
   */
  readonly costlyReadConnections?: number
  /** Longest a costly read waits for one of its connections before it is refused, in ms (default 1000). */
  readonly costlyReadQueueMs?: number
  /** Longest a costly read may take, its wait included, before it is refused, in ms (default 3000). */
  readonly readBudgetMs?: number
  /** How long to wait for a connection, new or from the pool, in ms (default 3000; `pg` waits forever). */
  readonly connectionTimeoutMs?: number
  /** Server-side limit on one statement, in ms (default 30000); the client gives up 2 s later. */
  readonly statementTimeoutMs?: number
  /** An idle connection is closed after this many ms (default 30000). */
  readonly idleTimeoutMs?: number
  /** Shown in pg_stat_activity, to tell instances apart (default `event-resource-service`). */
  readonly applicationName?: string
  /** A direct connection for the change feed's LISTEN and for migrations (default: the store's URL). */
  readonly listenUrl?: string
  /** `transaction`: the URL is a pooler in transaction mode; see postgres-pooler.ts (default `none`). */
  readonly pooler?: Pooler
  /** Told about connections that fail while idle; they are already discarded (default: ignored). */
  readonly onConnectionError?: (error: Error) => void
}

export const postgresDefaults = Object.freeze({
  poolSize: 10,
  costlyReadConnections: 0,
  costlyReadQueueMs: 1_000,
  readBudgetMs: 3_000,
  connectionTimeoutMs: 3_000,
  statementTimeoutMs: 30_000,
  idleTimeoutMs: 30_000,
  applicationName: 'event-resource-service',
  pooler: 'none' as Pooler,
})

// int8 (OID 20) arrives as text because it can exceed 2^53. Here it holds ids, epoch
// milliseconds and counts, all inside the safe integer range, so the store gets plain numbers.
const parseInt8 = (text: string) => Number(text)
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 && format !== 'binary'
      ? parseInt8
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

/** The costly reads' connections and the rest's, out of `poolSize` (see PostgresOptions). */
export function poolShares(poolSize: number, costlyReadConnections: number) {
  const costly = costlyReadConnections > 0 ? costlyReadConnections : Math.max(1, Math.floor(poolSize / 4))
  return { costly, cheap: Math.max(1, poolSize - costly) }
}

export function openPostgres(url: string, options: PostgresOptions = {}): DialectConnection {
  const settings = { ...postgresDefaults, ...options }
  const shares = poolShares(settings.poolSize, settings.costlyReadConnections)
  const pool = new pg.Pool({
    connectionString: url,
    max: shares.cheap,
    connectionTimeoutMillis: settings.connectionTimeoutMs,
    idleTimeoutMillis: settings.idleTimeoutMs,
    ...sessionSettings(settings.pooler, settings.statementTimeoutMs),
    // Only fires when the server cannot answer at all (it cancels first, at statement_timeout).
    query_timeout: settings.statementTimeoutMs + 2_000,
    keepAlive: true,
    application_name: settings.applicationName,
    types,
  })
  const ignore = options.onConnectionError ?? (() => {})
  // An idle connection that breaks (server restart, network) makes the pool emit 'error'; with no
  // listener that kills the process. The pool has already discarded the connection.
  pool.on('error', (error) => ignore(error))
  // A connection checked out between two statements of a transaction has no pool listener: give
  // every connection its own, so a break there fails the next query instead of the process.
  pool.on('connect', (client) => client.on('error', () => {}))
  const costly = costlyReads({
    url,
    connections: shares.costly,
    queueMs: settings.costlyReadQueueMs,
    budgetMs: settings.readBudgetMs,
    connectionTimeoutMs: settings.connectionTimeoutMs,
    idleTimeoutMs: settings.idleTimeoutMs,
    applicationName: settings.applicationName,
    types,
    onConnectionError: ignore,
    pooler: settings.pooler,
  })
  const pooled = settings.pooler === 'transaction'
  // Migrations and maintenance go to the direct connection when there is one.
  const directUrl = settings.listenUrl ?? url

  // One naming wrapper for Kysely and the pooled reads: a connection's statement names are its own.
  // Behind a transaction pooler no statement is named (postgres-pooler.ts); the wrapper stays, so
  // that both paths run the same code.
  const named = namingPool(pool, pooled ? 0 : undefined)
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: named }) })
  // Maintenance (migrations, VACUUM) runs on a connection of its own without the per-statement
  // limits, which guard requests: building an index, rewriting or vacuuming every row can take
  // minutes at a million events.
  async function unbounded<T>(purpose: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    const maintenancePool = new pg.Pool({
      connectionString: directUrl,
      max: 1,
      connectionTimeoutMillis: settings.connectionTimeoutMs,
      keepAlive: true,
      application_name: `${settings.applicationName} ${purpose}`,
      types,
    })
    maintenancePool.on('error', (error) => ignore(error))
    try {
      return await work(maintenancePool)
    } finally {
      if (!maintenancePool.ending) await maintenancePool.end()
    }
  }
  const announce = coalesced(
    async () => {
      await sql`select pg_notify(${changeChannel}, '')`.execute(db)
    },
    (error) => ignore(error as Error),
  )
  return {
    db,
    flavour: {
      idType: 'bigint',
      // Identity columns draw from a sequence: a deleted row's id is never handed out again.
      identity: (c) => c.generatedByDefaultAsIdentity().primaryKey(),
      // The wire protocol counts parameters in an unsigned 16-bit field.
      maxParameters: 65_535,
      offsetRowsPerBucketRow: 2,
      schema: 'postgres',
      importCommits: 'one-transaction',
      rowLocks: true,
      changeNumbering: 'by-readers',
      // LIKE, not strpos(): a pg_trgm index serves LIKE '%…%' (needles of 3 characters or more).
      // The default collation is deterministic, so LIKE compares code points exactly.
      contains: (_table, column, needle) =>
        sql<SqlBool>`${sql.ref(column)} like ${`%${needle.replace(/[\\%_]/g, '\\$&')}%`} escape '\\'`,
      // pg_trgm is a trusted extension (PostgreSQL 13+): a database owner may create it.
      async substringIndex(db, table, column) {
        await sql`create extension if not exists pg_trgm`.execute(db)
        await sql`create index ${sql.id(substringIndexName(table, column))} on ${sql.table(table)}
          using gin (${sql.ref(column)} gin_trgm_ops)`.execute(db)
        // Measured: until the new column has statistics, the planner takes LIKE '%…%' (and, after
        // a rewrite of every row, even `location_id = ?`) for common and scans the table.
        await sql`analyze ${sql.table(table)}`.execute(db)
      },
    },
    // READ COMMITTED is enough: every conditional write is one UPDATE/DELETE … WHERE version IN
    // (…), which PostgreSQL re-checks against the newest row version after waiting for its lock.
    // Behind a transaction pooler the session has no statement_timeout: set for this transaction alone.
    write: pooled
      ? (work) =>
          db.transaction().execute(async (trx) => {
            await sql`select set_config('statement_timeout', ${String(settings.statementTimeoutMs)}, true)`.execute(
              trx,
            )
            return work(trx)
          })
      : (work) => db.transaction().execute(work),
    // Held until the transaction ends; the key is folded into PostgreSQL's advisory-lock space.
    exclusive: async (trx, topic) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`ers:${topic}`}, 0))`.execute(trx)
    },
    // One transaction under a transaction-level advisory lock (postgres-pooler.ts).
    migrate: (provider) => unbounded('migrations', (pool) => migrateInTransaction(pool, provider)),
    // Sent after the write's commit, not in its transaction: PostgreSQL queues a transaction's
    // notifications under one database-wide lock held through its commit, so writes that notify
    // commit one at a time, each waiting for the WAL flush of the one before. One notification
    // wakes every listener: while one is on its way, the writes that commit meanwhile share the next.
    notify: announce.send,
    watch: (wake) =>
      listenForChanges(
        {
          url: directUrl,
          // A transaction pooler would hand the LISTEN's server connection to others: poll instead.
          listen: !pooled || settings.listenUrl !== undefined,
          pollMs: pooled && settings.listenUrl === undefined ? pollWithoutListenMs : undefined,
          channel: changeChannel,
          connectionTimeoutMs: settings.connectionTimeoutMs,
          onProblem: ignore,
        },
        wake,
      ),
    translate,
    isConflict,
    // A bulk load leaves every new row's page out of the visibility map (so index-only scans, which
    // deep pages count with, visit the table for each row) and one dead version of a date bucket's
    // row per batch that touched it, until autovacuum comes by. Measured at a million imported
    // events: the deep page took 73 ms at p50 right after the import (6–9 ms after VACUUM).
    afterBulkLoad: () =>
      unbounded('vacuum', async (pool) => {
        await pool.query('vacuum (analyze) events, event_buckets, counters')
      }),
    async readPooled<R>({ sql: text, parameters }: CompiledQuery<R>) {
      const connection = await named.connect()
      try {
        return (await connection.query<R>(text, parameters)).rows
      } finally {
        connection.release()
      }
    },
    readCostly: (query) => costly.read(query),
    readerStats: () => costly.stats(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      await costly.close()
      await announce.settled()
      await db.destroy()
      // Kysely ends the pool only if it ran a query itself; the hot reads go past it (readPooled).
      if (!pool.ending) await pool.end()
    },
  }
}

const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, in recovery)
  '57014', // query_canceled: statement_timeout
  '53300', // too_many_connections
])

const unreachableMessages =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|Query read timeout|Connection ended unexpectedly/i

/** True when `error` says the database could not be reached or answered in time. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (unreachableCodes.has(code) || code.startsWith('08'))) return true
  // Node reports a failed connection to every address of a host as one AggregateError.
  if (error instanceof AggregateError && error.errors.some(isUnavailable)) return true
  return unreachableMessages.test(error.message)
}

// SQLSTATE class 40, transaction rollback: the transaction lost to concurrent ones and was rolled
// back whole; run again, it may well succeed (PostgreSQL manual §13.4, "Serialization Failure
// Handling", names exactly these two).
const conflictCodes = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
])

function isConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && conflictCodes.has(code)
}

function translate(error: unknown): unknown {
  if (error instanceof DomainError) return error
  // Still in conflict after the store's retries (kysely-store.ts): busy, not broken (503).
  if (isConflict(error)) {
    const busy = new DomainError(
      'unavailable',
      'the database is busy with conflicting writes and could not complete this one; try again shortly',
    )
    busy.cause = error
    return busy
  }
  // character_not_in_repertoire: U+0000 in text that did not come through a checked field.
  if ((error as { code?: unknown }).code === '22021') {
    return new DomainError(
      'invalid_fields',
      'a text value contains a character that cannot be stored (U+0000)',
    )
  }
  // foreign_key_violation: the one key is events.location_id → locations.id. An event written
  // while its location was deleted meets it (location-references.ts); a delete counts the
  // events under a row lock first, so its side is only a fallback. PostgreSQL tells the two
  // sides apart in the message alone.
  if ((error as { code?: unknown }).code === '23503') {
    return /^update or delete on table "locations"/.test((error as Error).message)
      ? locationInUse()
      : unknownLocation()
  }
  if (!isUnavailable(error)) return error
  const unavailable = new DomainError(
    'unavailable',
    'the database is unreachable or did not answer in time; try again shortly',
  )
  // Kept for the log line of whoever handles it; the client sees only the message above.
  unavailable.cause = error
  return unavailable
}

/**
 * `send` starts `work` unless it is already running; then it runs once more when the current run
 * ends, for whatever asked meanwhile. `settled` waits for the runs asked for so far.
 */
function coalesced(work: () => Promise<void>, onError: (error: unknown) => void) {
  let running: Promise<void> | undefined
  let again = false
  const run = async () => {
    do {
      again = false
      await work().catch(onError)
    } while (again)
    running = undefined
  }
  return {
    send() {
      if (running) again = true
      else running = run()
    },
    settled: async () => {
      await running
    },
  }
}

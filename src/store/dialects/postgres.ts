// PostgreSQL through a `pg` pool. Any number of service instances may share one database, so
// nothing here relies on process memory: conditional writes are single statements, migrations
// hold Kysely's advisory lock, and one-time set-up is decided by unique keys.
import { type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely'
import type pg from 'pg'
import { changeChannel } from '../change-log.ts'
import { coalesced } from '../coalesced.ts'
import type { DialectConnection } from '../dialect-connection.ts'
import type { Database } from '../schema.ts'
import { pgDriver } from './pg-driver.ts'
import { costlyReads } from './postgres-costly.ts'
import { isConflict, isUnavailable, translate } from './postgres-errors.ts'
import { postgresFlavour } from './postgres-flavour.ts'
import { postgresTarget } from './postgres-host-choice.ts'
import { listenForChanges } from './postgres-listen.ts'
import { migrateInTransaction, type Pooler, pollWithoutListenMs, sessionSettings } from './postgres-pooler.ts'
import { namingPool } from './postgres-prepared.ts'
import { withReplicas } from './postgres-replicas.ts'
import { poolShares, types } from './postgres-types.ts'

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
  /** Streaming replicas for plain reads, and their bounds (postgres-replicas.ts); default: none. */
  readonly replicas?: { readonly urls: readonly string[]; readonly maxLagMs: number; readonly waitMs: number }
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

/** The least time between two notifications of a steady stream of writes, in ms. */
const notifyGapMs = 10

export function openPostgres(url: string, options: PostgresOptions = {}): DialectConnection {
  const settings = { ...postgresDefaults, ...options }
  const shares = poolShares(settings.poolSize, settings.costlyReadConnections)
  // Several hosts (libpq's form): every pool and the feed follow one choice of host per URL.
  const ignore = options.onConnectionError ?? (() => {})
  const hostChoice = { connectionTimeoutMs: settings.connectionTimeoutMs, onProblem: ignore }
  const target = postgresTarget(url, hostChoice)
  // Migrations, maintenance and the feed go to the direct connection when there is one.
  const direct = settings.listenUrl === undefined ? target : postgresTarget(settings.listenUrl, hostChoice)
  const pool = new (pgDriver().Pool)({
    connectionString: target.url,
    Client: target.Client,
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
  // An idle connection that breaks (server restart, network) makes the pool emit 'error'; with no
  // listener that kills the process. The pool has already discarded the connection.
  pool.on('error', (error) => ignore(error))
  // A connection checked out between two statements of a transaction has no pool listener: give
  // every connection its own, so a break there fails the next query instead of the process.
  pool.on('connect', (client) => client.on('error', () => {}))
  const costly = costlyReads({
    url: target.url,
    Client: target.Client,
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

  // One naming wrapper for Kysely and the pooled reads: a connection's statement names are its own.
  // Behind a transaction pooler no statement is named (postgres-pooler.ts); the wrapper stays, so
  // that both paths run the same code.
  const named = namingPool(pool, pooled ? 0 : undefined)
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: named }) })
  // Maintenance (migrations, VACUUM) runs on a connection of its own without the per-statement
  // limits, which guard requests: building an index, rewriting or vacuuming every row can take
  // minutes at a million events.
  async function unbounded<T>(purpose: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    const maintenancePool = new (pgDriver().Pool)({
      connectionString: direct.url,
      Client: direct.Client,
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
  // One statement on a connection of the pool, past Kysely's executor (DialectConnection.runPooled).
  async function runPooled<R>({ sql: text, parameters }: CompiledQuery<R>): Promise<R[]> {
    const connection = await named.connect()
    try {
      return (await connection.query<R>(text, parameters)).rows
    } finally {
      connection.release()
    }
  }
  const notification = sql`select pg_notify(${changeChannel}, '')`.compile(db)
  // While writes keep coming, one notification per round trip and `notifyGapMs` at most: at
  // ~1,000 PUT/s back to back they were one in ~3.5 writes, a round trip each; the feed's
  // promise is within a second (docs/change-feed.md).
  const announce = coalesced(
    async () => {
      await runPooled(notification)
    },
    (error) => ignore(error as Error),
    notifyGapMs,
  )
  const connection: DialectConnection = {
    db,
    flavour: postgresFlavour,
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
          url: direct.url,
          Client: direct.Client,
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
    runPooled,
    readCostly: (query) => costly.read(query),
    readerStats: () => costly.stats(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      await costly.close()
      await announce.settled()
      await db.destroy()
      // Kysely ends the pool only if it ran a query itself; the hot reads go past it (runPooled).
      if (!pool.ending) await pool.end()
    },
  }
  const { replicas } = settings
  if (!replicas || replicas.urls.length === 0) return connection
  const shared = { ...settings, types, pooler: settings.pooler, onProblem: ignore, isUnavailable }
  return withReplicas(connection, { ...shared, ...replicas, poolSize: shares.cheap })
}

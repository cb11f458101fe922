// What changes when DATABASE_URL is a pooler in transaction mode (PgBouncer's
// `pool_mode = transaction`): the server connection behind a client connection changes hands at
// every commit, so nothing may outlive a transaction on it.
//
// - No named prepared statements: PgBouncer 1.18 does not track them, and the next transaction on
//   the same client connection may reach a server that never saw the Parse ("prepared statement
//   does not exist"), or one where another client's statement holds the name.
//   Measured directly against PostgreSQL 15 here, one connection, 20,000 selects by id each way:
//   unnamed 156-175 µs per round trip, named 120-128 µs. So named where safe (no pooler).
// - No session settings: `pg` sends `statement_timeout` and `idle_in_transaction_session_timeout`
//   in the startup packet, which PgBouncer refuses ("unsupported startup parameter") unless told to
//   ignore them, and then they would silently not apply. Writes and costly reads set
//   `statement_timeout` with `set_config(…, true)` (SET LOCAL) inside their transaction; a plain
//   read has the client's timeout and whatever the role or database sets (docs/operations.md).
// - No session advisory locks: Kysely's PostgreSQL migrator takes `pg_advisory_lock` before its
//   transaction and releases it after, which under a transaction pooler may lock one server
//   connection and unlock another, leaving the lock held for ever. Migrations here run inside one
//   transaction under `pg_advisory_xact_lock`, with or without a pooler: released by the commit
//   or rollback, never leaked.
// - No LISTEN: the registration belongs to a server connection the pooler hands to others. The
//   feed listens on DATABASE_LISTEN_URL, a direct connection; without one it polls.
import { Kysely, PostgresAdapter, PostgresDialect, sql } from 'kysely'
import type { MigrationProvider, MigrationResultSet } from 'kysely/migration'
import type pg from 'pg'
import { migratorFor } from '../migrator.ts'
import type { Database } from '../schema.ts'

export type Pooler = 'none' | 'transaction'

/** How often the feed reads the log when it cannot LISTEN (a transaction pooler, no DATABASE_LISTEN_URL). */
export const pollWithoutListenMs = 500

/** The `pg` settings sent at connection start: only those a transaction pooler accepts when behind one. */
export function sessionSettings(pooler: Pooler, statementTimeoutMs: number) {
  if (pooler === 'transaction') return {}
  return {
    statement_timeout: statementTimeoutMs,
    // A process that stalls mid-transaction must not hold row locks for ever.
    idle_in_transaction_session_timeout: Math.max(statementTimeoutMs * 2, 10_000),
  }
}

/** One line for the start-up log: how this store reaches PostgreSQL. */
export function poolerDescription(pooler: Pooler, listenUrl: string | undefined): string {
  if (pooler === 'none')
    return `PostgreSQL: direct connections (named prepared statements; the change feed LISTENs on ${listenUrl ? 'DATABASE_LISTEN_URL' : 'DATABASE_URL'})`
  return listenUrl
    ? 'PostgreSQL: behind a transaction pooler (DATABASE_POOLER=transaction): unnamed statements, timeouts per transaction; the change feed LISTENs on DATABASE_LISTEN_URL'
    : `PostgreSQL: behind a transaction pooler (DATABASE_POOLER=transaction): unnamed statements, timeouts per transaction; no DATABASE_LISTEN_URL, so the change feed polls every ${pollWithoutListenMs} ms`
}

const lockKey = 'ers:migrations'

// Kysely's migrator asks its adapter for the lock; this one is held by the surrounding transaction.
class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`.execute(db)
  }
  override async releaseMigrationLock(): Promise<void> {}
}

class TransactionLockDialect extends PostgresDialect {
  override createAdapter() {
    return new TransactionLockAdapter()
  }
}

class Failed extends Error {
  constructor(readonly result: MigrationResultSet) {
    super('migration failed')
  }
}

/**
 * Runs every pending migration in one transaction under a transaction-level advisory lock. Another
 * instance migrating at the same time waits for the lock, then finds nothing left to do.
 */
export async function migrateInTransaction(
  pool: pg.Pool,
  provider: MigrationProvider,
): Promise<MigrationResultSet> {
  const db = new Kysely<Database>({ dialect: new TransactionLockDialect({ pool }) })
  try {
    return await db.transaction().execute(async (trx) => {
      // Before Kysely creates its tables, so that two first start-ups do not race to create them.
      await sql`select pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`.execute(trx)
      const result = await migratorFor(trx, provider).migrateToLatest()
      // Thrown to roll the transaction back; handed back as Kysely's result below.
      if (result.error) throw new Failed(result)
      return result
    })
  } catch (error) {
    if (error instanceof Failed) return error.result
    throw error
  } finally {
    await db.destroy()
  }
}

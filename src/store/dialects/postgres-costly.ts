// PostgreSQL's reads whose cost grows with the data (every filtered page of /events: a `q` the
// trigram index cannot narrow counts every title, a deep page or a wide date range walks an index
// for as long as it is), kept apart from the cheap ones. Measured at a million events before this:
// 16 connections sending such reads held the whole pool, and GET /events/5 was answered 5 times
// in 8 s (p99 2.9 s).
//
// - A pool of their own, `connections` strong, taken out of the service's pool size: the cheap
//   reads' connections can never be held by a slow statement.
// - A bulkhead (../bulkhead.ts) in front of it, as many slots as connections, so a costly read
//   never waits inside `pg` for a connection: it waits in the bulkhead's queue at most `queueMs`,
//   then is refused (`too_costly`, 503 with Retry-After).
// - A time budget (`budgetMs`) from the read's arrival, the wait included: the statement runs
//   with `statement_timeout` set to what is left of it, so PostgreSQL itself cancels it
//   (SQLSTATE 57014) and the connection stays usable. Writes, the feed and the cheap reads keep
//   the pool's own limit (DB_STATEMENT_TIMEOUT_MS).
// - One process each: the statement runs without parallel workers. PostgreSQL otherwise plans a
//   seq scan of 200,000 events with workers, so one costly read takes every core and the cheap
//   reads' backends wait for CPU (GET /events/5 unanswered for 112 ms in a CI run on 2 cores).
import type { CompiledQuery } from 'kysely'
import type pg from 'pg'
import { DomainError } from '../../domain/errors.ts'
import { Bulkhead } from '../bulkhead.ts'
import type { ReaderStats } from '../event-store.ts'
import { pgDriver } from './pg-driver.ts'

export interface CostlyReadOptions {
  readonly url: string
  /** The client class that follows a multi-host URL's choice (postgres-host-choice.ts). */
  readonly Client?: typeof pg.Client
  /** Connections (and bulkhead slots) for costly reads. */
  readonly connections: number
  /** Longest a costly read waits for a free connection before it is refused, in ms. */
  readonly queueMs: number
  /** Longest a costly read may take, the wait included, before it is refused, in ms. */
  readonly budgetMs: number
  readonly connectionTimeoutMs: number
  readonly idleTimeoutMs: number
  readonly applicationName: string
  readonly types: pg.CustomTypesConfig
  readonly onConnectionError: (error: Error) => void
  /** `transaction`: behind a transaction pooler, so the limit is set per transaction. */
  readonly pooler: 'none' | 'transaction'
}

export interface CostlyReads {
  read<R>(query: CompiledQuery<R>): Promise<R[]>
  stats(): ReaderStats
  close(): Promise<void>
}

const queryCanceled = '57014'

/** The statement that bounds a costly read: its time left ($1) and one process, for the session or the transaction. */
const limits = (local: boolean) =>
  `select set_config('statement_timeout', $1, ${local}), set_config('max_parallel_workers_per_gather', '0', ${local})`

export function costlyReads(options: CostlyReadOptions): CostlyReads {
  const pool = new (pgDriver().Pool)({
    connectionString: options.url,
    Client: options.Client,
    max: options.connections,
    connectionTimeoutMillis: options.connectionTimeoutMs,
    idleTimeoutMillis: options.idleTimeoutMs,
    ...(options.pooler === 'none' ? { statement_timeout: options.budgetMs } : {}),
    // Only fires when the server cannot answer at all (it cancels first, at statement_timeout).
    query_timeout: options.budgetMs + 2_000,
    keepAlive: true,
    application_name: `${options.applicationName} costly-reads`,
    types: options.types,
  })
  pool.on('error', (error) => options.onConnectionError(error))
  pool.on('connect', (client) => client.on('error', () => {}))
  const bulkhead = new Bulkhead(options.connections)
  let overBudget = 0

  const tooCostly = () => {
    overBudget++
    return new DomainError(
      'too_costly',
      `this search was too costly to answer within ${options.budgetMs} ms; narrow it (a longer q, a shorter date range, a location_id) or try again later`,
    )
  }
  const full = () =>
    new DomainError(
      'too_costly',
      `too many costly searches are running; try again shortly, or narrow this one (a longer q, a shorter date range, a location_id)`,
    )

  async function run<R>({ sql, parameters }: CompiledQuery<R>, arrived: number): Promise<R[]> {
    const left = Math.floor(options.budgetMs - (performance.now() - arrived))
    if (left < 1) throw tooCostly()
    const client = await pool.connect()
    let broken: Error | undefined
    try {
      if (options.pooler === 'transaction') return await inTransaction(client, left, sql, parameters)
      // Session-wide on a connection only costly reads use, and set again before every one of them.
      await client.query(limits(false), [String(left)])
      return (await client.query<R & pg.QueryResultRow>(sql, [...parameters])).rows
    } catch (error) {
      if ((error as { code?: unknown }).code === queryCanceled) throw tooCostly()
      // Anything else (a broken connection, the client's own timeout): the connection is dropped.
      broken = error as Error
      throw error
    } finally {
      client.release(broken)
    }
  }

  return {
    read(query) {
      const arrived = performance.now()
      const wait = Math.min(options.queueMs, options.budgetMs)
      return bulkhead.run(() => run(query, arrived), wait, full)
    },
    stats: () => ({ ...bulkhead.stats(), overBudget, crashed: 0 }),
    close: async () => {
      if (!pool.ending) await pool.end()
    },
  }
}

// Behind a transaction pooler a session setting would stay on a server connection others get next:
// SET LOCAL's equivalent, in a transaction of its own (two round trips more per costly read).
async function inTransaction<R>(
  client: pg.PoolClient,
  timeoutMs: number,
  text: string,
  parameters: readonly unknown[],
): Promise<R[]> {
  await client.query('begin')
  try {
    await client.query(limits(true), [String(timeoutMs)])
    const rows = (await client.query<R & pg.QueryResultRow>(text, [...parameters])).rows
    await client.query('commit')
    return rows
  } catch (error) {
    await client.query('rollback').catch(() => {})
    throw error
  }
}

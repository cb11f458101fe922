// Plain reads on streaming replicas (DATABASE_READ_URL), with bounded staleness and read-your-
// writes; docs/operations.md, "Read replicas", says what an operator may count on.
//
// - Which reads: the store's plain reads only (readPlain: an event, a location, a page of either,
//   the locations of a page). Writes, the reads inside them, authentication look-ups, the change
//   feed and the filtered pages of /events stay on the primary: the last have a bounded share of
//   connections of their own (postgres-costly.ts), a bulkhead that only holds if it is the one
//   place they run; so does whatever runs inside readingPrimary() (read-target.ts).
// - Bounded staleness: every `checkMs` the primary's WAL position is sampled, then each replica's
//   replayed position, and the lag follows (replica-lag.ts). A replica serves a read only while
//   its lag as measured, plus the time since it was measured, is under `maxLagMs`.
// - Read your writes: a read waits (at most `waitMs`) until its replica has replayed the position
//   that covers this process's writes (write-horizon.ts), or goes to the primary.
// - A replica whose read or check fails is skipped at once (the next check brings it back); a
//   read that failed on it runs once more on the primary, so its caller sees no error.
import { type CompiledQuery, sql } from 'kysely'
import type { DialectConnection } from '../dialect-connection.ts'
import type { ReplicaStats } from '../event-store.ts'
import { primaryRequired, replicasOpened } from '../read-target.ts'
import { Replica, type ReplicaConnectionSettings } from './postgres-replica.ts'
import { PrimaryPositions, parseLsn } from './replica-lag.ts'
import { WriteHorizon } from './write-horizon.ts'

export interface ReplicaOptions extends ReplicaConnectionSettings {
  /** One connection URL per replica (a multi-host DATABASE_READ_URL already split). */
  readonly urls: readonly string[]
  /** A replica serves reads only while its data is less than this old, in ms. */
  readonly maxLagMs: number
  /** Longest a read waits for its replica to replay this process's writes, in ms. */
  readonly waitMs: number
  /** True when an error means the server could not be reached (postgres.ts isUnavailable). */
  readonly isUnavailable: (error: unknown) => boolean
  readonly onProblem: (error: Error) => void
}

/** How often each replica's lag is measured, in ms (the issue asks for 250 at most). */
export const replicaCheckMs = 100

// Past its commit, the WAL a commit needs on a replica ends at the flush position, unless commits
// do not wait for the flush (synchronous_commit = off): then at the insert position.
const positionText = `select (case when current_setting('synchronous_commit') = 'off'
  then pg_current_wal_insert_lsn() else pg_current_wal_flush_lsn() end)::text as lsn`

/** `connection` with its plain reads routed to the replicas of `options`. */
export function withReplicas(connection: DialectConnection, options: ReplicaOptions): DialectConnection {
  const onPrimary = <R>(query: CompiledQuery<R>): Promise<R[]> =>
    connection.runPooled ? connection.runPooled(query) : connection.db.executeQuery(query).then((r) => r.rows)
  const positionQuery = sql.raw<{ lsn: string }>(positionText).compile(connection.db)
  const position = async () => {
    const [row] = await onPrimary(positionQuery)
    if (!row) throw new Error('the primary reported no WAL position')
    return parseLsn(row.lsn)
  }
  const reads = new ReplicaReads(options, position, onPrimary)
  replicasOpened()
  return {
    ...connection,
    // Marked even when the write failed: its commit may have happened with the answer lost.
    write: (work) => connection.write(work).finally(() => reads.horizon.committed()),
    // The store calls notify after every write of events, one-statement writes included.
    notify() {
      reads.horizon.committed()
      connection.notify?.()
    },
    readPlain: (query) => reads.read(query),
    replicaStats: () => reads.stats(),
    async close() {
      await reads.close()
      await connection.close()
    },
  }
}

class ReplicaReads {
  readonly horizon: WriteHorizon
  readonly #replicas: Replica[]
  readonly #positions: PrimaryPositions
  #next = 0
  #primaryReads = 0
  #retried = 0
  #timer: NodeJS.Timeout | undefined
  #checking: Promise<void> | undefined
  #closed = false

  constructor(
    private readonly options: ReplicaOptions,
    private readonly position: () => Promise<bigint>,
    private readonly onPrimary: <R>(query: CompiledQuery<R>) => Promise<R[]>,
  ) {
    this.horizon = new WriteHorizon(position)
    // Lags up to twice the bound can still be told apart from "further behind than that".
    this.#positions = new PrimaryPositions(2 * options.maxLagMs + 2 * replicaCheckMs)
    const onDown = (replica: string, error: Error) =>
      options.onProblem(
        Object.assign(new Error(`replica ${replica} is skipped: ${error.message}`), { cause: error }),
      )
    this.#replicas = options.urls.map((url) => new Replica({ ...options, url, onDown }))
    this.#schedule(0)
  }

  read<R>(query: CompiledQuery<R>): Promise<R[]> {
    if (primaryRequired()) return this.#readPrimary(query)
    const required = this.horizon.required()
    const replica = this.#pick(typeof required === 'bigint' ? required : undefined)
    if (!replica) return this.#readPrimary(query)
    // The common case answers without a turn of waiting: nothing written lately, or replayed.
    if (typeof required === 'bigint' && replica.hasReplayed(required))
      return this.#readReplica(replica, query)
    return this.#readAfterWait(replica, required, query)
  }

  async #readAfterWait<R>(
    replica: Replica,
    required: bigint | undefined | Promise<bigint | undefined>,
    query: CompiledQuery<R>,
  ): Promise<R[]> {
    const lsn = await required
    if (lsn === undefined || !(await replica.waitFor(lsn, this.options.waitMs)))
      return this.#readPrimary(query)
    return this.#readReplica(replica, query)
  }

  /** Round robin over the fresh replicas, preferring one that has replayed `required` already. */
  #pick(required: bigint | undefined): Replica | undefined {
    const now = performance.now()
    const count = this.#replicas.length
    let fallback: Replica | undefined
    for (let i = 0; i < count; i++) {
      const replica = this.#replicas[(this.#next + i) % count] as Replica
      if (!replica.fresh(now, this.options.maxLagMs)) continue
      if (required === undefined || replica.hasReplayed(required)) {
        this.#next = (this.#next + i + 1) % count
        return replica
      }
      fallback ??= replica
    }
    return fallback
  }

  #readPrimary<R>(query: CompiledQuery<R>): Promise<R[]> {
    this.#primaryReads++
    return this.onPrimary(query)
  }

  #readReplica<R>(replica: Replica, query: CompiledQuery<R>): Promise<R[]> {
    return replica.query(query).then(
      (rows) => {
        replica.reads++
        return rows
      },
      (error: unknown) => {
        // Down, or a query the replica cancelled (a conflict with recovery): once more, on the primary.
        if (this.options.isUnavailable(error)) replica.markDown(error as Error)
        this.#retried++
        return this.#readPrimary(query)
      },
    )
  }

  stats(): ReplicaStats {
    const now = performance.now()
    return {
      primaryReads: this.#primaryReads,
      retried: this.#retried,
      replicas: this.#replicas.map((replica) => ({
        name: replica.name,
        state: replica.state(now, this.options.maxLagMs),
        lagMs: replica.lagMs,
        reads: replica.reads,
      })),
    }
  }

  #schedule(delayMs: number) {
    if (this.#closed) return
    this.#timer = setTimeout(() => {
      this.#checking = this.#check().finally(() => this.#schedule(replicaCheckMs))
    }, delayMs)
    // Measuring lags alone keeps no process alive.
    this.#timer.unref()
  }

  /** The primary's position, then every replica's: each lag against what the primary had then. */
  async #check(): Promise<void> {
    const at = performance.now()
    try {
      this.#positions.add(at, await this.position())
    } catch (error) {
      // No new sample: the replicas' lags grow with the time since the last one.
      this.options.onProblem(error as Error)
    }
    await Promise.all(this.#replicas.map((replica) => replica.check(this.#positions)))
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#timer)
    await this.#checking
    await Promise.all(this.#replicas.map((replica) => replica.close()))
  }
}

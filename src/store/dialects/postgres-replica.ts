// One streaming replica, as the read routing (postgres-replicas.ts) sees it: a pool of its own for
// the reads, another of one connection that asks how far it has replayed, and what was last seen.
import type { CompiledQuery } from 'kysely'
import type pg from 'pg'
import type { ReplicaState } from '../event-store.ts'
import { pgDriver } from './pg-driver.ts'
import { type Pooler, sessionSettings } from './postgres-pooler.ts'
import { namingPool } from './postgres-prepared.ts'
import { type PrimaryPositions, parseLsn } from './replica-lag.ts'

/** How the service connects to every replica. */
export interface ReplicaConnectionSettings {
  /** Connections per replica for reads. */
  readonly poolSize: number
  readonly connectionTimeoutMs: number
  readonly statementTimeoutMs: number
  readonly idleTimeoutMs: number
  readonly applicationName: string
  readonly types: pg.CustomTypesConfig
  readonly pooler: Pooler
}

export interface ReplicaSettings extends ReplicaConnectionSettings {
  readonly url: string
  /** Told why the replica was found down (a failed read or check, a connection that broke). */
  readonly onDown: (replica: string, error: Error) => void
}

/** How often a read waiting for the replica to replay a write asks again, in ms. */
const replayPollMs = 2

export class Replica {
  /** `host:port`, never the credentials. */
  readonly name: string
  readonly #pool: pg.Pool
  readonly #named: ReturnType<typeof namingPool>
  /** Asks how far the replica has replayed (checks and read-your-writes waits), one at a time. */
  readonly #probe: pg.Pool
  /** Replayed WAL position, as last seen. */
  #replayed = -1n
  #lagMs = Number.POSITIVE_INFINITY
  /** When lagMs was measured (performance.now()); undefined until the first check answers. */
  #measuredAt: number | undefined
  #down = false
  /** False when the server answers but is no replica (promoted): it is not read from here. */
  #inRecovery = true
  #waiters = new Set<{ readonly lsn: bigint; settle(done: boolean): void }>()
  #polling = false
  reads = 0

  constructor(private readonly settings: ReplicaSettings) {
    const url = new URL(settings.url)
    this.name = `${url.hostname}:${url.port || 5432}`
    const common = {
      connectionString: settings.url,
      connectionTimeoutMillis: settings.connectionTimeoutMs,
      idleTimeoutMillis: settings.idleTimeoutMs,
      ...sessionSettings(settings.pooler, settings.statementTimeoutMs),
      query_timeout: settings.statementTimeoutMs + 2_000,
      keepAlive: true,
      types: settings.types,
    }
    this.#pool = new (pgDriver().Pool)({
      ...common,
      max: settings.poolSize,
      application_name: `${settings.applicationName} replica-reads`,
    })
    this.#probe = new (pgDriver().Pool)({
      ...common,
      max: 1,
      application_name: `${settings.applicationName} replica-check`,
    })
    // A replica stopped or restarted breaks its idle connections first: skipped from that moment.
    for (const pool of [this.#pool, this.#probe]) {
      pool.on('error', (error) => this.markDown(error))
      pool.on('connect', (client) => client.on('error', () => {}))
    }
    this.#named = namingPool(this.#pool, settings.pooler === 'transaction' ? 0 : undefined)
  }

  /** May serve a read now: reachable, a replica, and its data less than `maxLagMs` old. */
  fresh(now: number, maxLagMs: number): boolean {
    return !this.#down && this.#inRecovery && this.#measuredAt !== undefined && this.lagBound(now) < maxLagMs
  }

  /** Its lag as measured, plus the time since: replay can fall behind by no more than that. */
  lagBound(now: number): number {
    return this.#measuredAt === undefined ? Number.POSITIVE_INFINITY : this.#lagMs + (now - this.#measuredAt)
  }

  state(now: number, maxLagMs: number): ReplicaState {
    if (this.#down) return 'down'
    if (!this.#inRecovery) return 'not-a-replica'
    if (this.#measuredAt === undefined) return 'starting'
    return this.lagBound(now) < maxLagMs ? 'up' : 'lagging'
  }

  /** Its lag as last measured, in ms; undefined before the first measurement or past every sample. */
  get lagMs(): number | undefined {
    return Number.isFinite(this.#lagMs) && this.#measuredAt !== undefined ? this.#lagMs : undefined
  }

  hasReplayed(lsn: bigint): boolean {
    return this.#replayed >= lsn
  }

  markDown(error: Error): void {
    if (!this.#down) this.settings.onDown(this.name, error)
    this.#down = true
    this.#replayed = -1n
    for (const waiter of this.#waiters) waiter.settle(false)
  }

  /** Measures its lag against the primary's positions; a failure marks it down at once. */
  async check(positions: PrimaryPositions): Promise<void> {
    try {
      const replayed = await this.#askReplayed()
      const at = performance.now()
      this.#lagMs = positions.lagMs(replayed, at)
      this.#measuredAt = at
      this.#down = false
    } catch (error) {
      this.markDown(error as Error)
    }
  }

  /**
   * Resolves true once the replica has replayed `lsn`, false after `waitMs` or when it fails;
   * waiting reads share one question at a time.
   */
  waitFor(lsn: bigint, waitMs: number): boolean | Promise<boolean> {
    if (this.#replayed >= lsn) return true
    if (waitMs <= 0 || this.#down) return false
    return new Promise<boolean>((resolve) => {
      const waiter = {
        lsn,
        settle: (done: boolean) => {
          clearTimeout(timer)
          this.#waiters.delete(waiter)
          resolve(done)
        },
      }
      const timer = setTimeout(() => waiter.settle(false), waitMs)
      this.#waiters.add(waiter)
      if (!this.#polling) void this.#pollReplay()
    })
  }

  async #pollReplay(): Promise<void> {
    this.#polling = true
    try {
      while (this.#waiters.size > 0) {
        await this.#askReplayed()
        for (const waiter of this.#waiters) if (this.#replayed >= waiter.lsn) waiter.settle(true)
        if (this.#waiters.size > 0) await new Promise((resolve) => setTimeout(resolve, replayPollMs))
      }
    } catch (error) {
      this.markDown(error as Error)
    } finally {
      this.#polling = false
    }
  }

  async #askReplayed(): Promise<bigint> {
    const { rows } = await this.#probe.query<{ lsn: string | null; recovery: boolean }>(
      'select pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as recovery',
    )
    const row = rows[0]
    this.#inRecovery = row?.recovery === true
    // As seen now, not the most ever seen: a replica that restarts may take reads again before it
    // has replayed as far as it had (hot standby opens once consistent), and must wait again.
    const replayed = row?.lsn ? parseLsn(row.lsn) : -1n
    this.#replayed = replayed
    return replayed
  }

  async query<R>({ sql: text, parameters }: CompiledQuery<R>): Promise<R[]> {
    const connection = await this.#named.connect()
    try {
      return (await connection.query<R>(text, parameters)).rows
    } finally {
      connection.release()
    }
  }

  async close(): Promise<void> {
    for (const waiter of this.#waiters) waiter.settle(false)
    await Promise.all([
      this.#pool.ending ? undefined : this.#pool.end(),
      this.#probe.ending ? undefined : this.#probe.end(),
    ])
  }
}

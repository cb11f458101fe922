// What every repository shares: the dialect's connection, the one read path of the hot queries,
// the write transaction with its retry of conflicts, and the wake-up of the change watchers.
import { setTimeout } from 'node:timers/promises'
import type { CompiledQuery, Kysely } from 'kysely'
import type { DialectConnection } from '../dialect-connection.ts'
import type { Executor } from '../executor.ts'
import type { SqlFlavour } from '../flavour.ts'
import { type HotQueries, hotQueries } from '../hot-queries.ts'
import { hotReadPath, plainReadPath, type ReadRows } from '../hot-read.ts'
import type { Database } from '../schema.ts'

/** Runs of a write that lost to a concurrent one (retryingConflicts), in all, and the base wait. */
const conflictAttempts = 3
const conflictBackoffMs = 20

export class StoreContext {
  readonly db: Kysely<Database>
  readonly flavour: SqlFlavour
  /** The reads made on (almost) every request, compiled once (hot-queries.ts). */
  readonly hot: HotQueries
  readonly #readRows: ReadRows
  readonly #readPlain: ReadRows
  /**
   * The rows of one statement that is its own transaction (PostgreSQL's one-statement event
   * writes), on the primary: past Kysely where the dialect can (runPooled); errors untranslated.
   */
  readonly statement: <R>(query: CompiledQuery<R>) => Promise<R[]>
  /** Told after every committed event write of this process (the change feed's reader). */
  readonly #watchers = new Set<() => void>()
  #stopWatching: (() => Promise<void>) | undefined

  constructor(readonly dialect: DialectConnection) {
    this.db = dialect.db
    this.flavour = dialect.flavour
    this.hot = hotQueries(dialect.db)
    this.#readRows = hotReadPath(dialect)
    this.#readPlain = plainReadPath(dialect)
    const { runPooled } = dialect
    this.statement = runPooled
      ? (query) => runPooled(query)
      : async (query) => (await dialect.db.executeQuery(query)).rows
  }

  /**
   * A hot read answered from its rows (hot-read.ts): where the rows came at once, one promise and
   * no await (four nested async functions were ~2 µs of a GET by id); errors translated as guard's.
   */
  read<R, T>(query: CompiledQuery<R>, answer: (rows: R[]) => T, plain = false): Promise<T> {
    let rows: R[] | Promise<R[]>
    try {
      rows = plain ? this.#readPlain(query) : this.#readRows(query)
    } catch (error) {
      return Promise.reject(this.dialect.translate(error))
    }
    if (Array.isArray(rows)) return Promise.resolve(answer(rows))
    return rows.then(answer, (error: unknown) => {
      throw this.dialect.translate(error)
    })
  }

  /**
   * A page whose rows each carry the total: one statement, so both come from one snapshot. A plain
   * read (hot-read.ts): it may come from a replica.
   */
  async page<R extends { total: number }>(page: CompiledQuery<R>, total: CompiledQuery<{ total: number }>) {
    const rows = await this.#readPlain(page)
    // Past the last page there is no row to carry the total: ask for it alone.
    const first = rows[0] ?? (await this.#readPlain(total))[0]
    return { total: Number(first?.total ?? 0), rows }
  }

  /** A plain read's rows (hot-read.ts), errors untranslated: run it inside guard. */
  readPlain<R>(query: CompiledQuery<R>): Promise<R[]> {
    return Promise.resolve(this.#readPlain(query))
  }

  /** Runs `work`, its errors translated by the dialect (DomainErrors where they mean something). */
  async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      throw this.dialect.translate(error)
    }
  }

  /** Runs `work` in one write transaction of the dialect, again after a conflict, translated. */
  write<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    return this.guard(() => this.retryingConflicts(() => this.dialect.write(work)))
  }

  /**
   * A write that may log changes: once it has committed, this process's feed reads the log, and
   * other processes' feeds are told.
   */
  async writeEvents<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    const result = await this.write(work)
    this.changed()
    return result
  }

  /**
   * Runs a write (a transaction, or one statement that is its own) again while it fails only for
   * a conflict with concurrent transactions (dialect.isConflict): PostgreSQL rolls the loser back
   * whole and its manual (§13.4) says to retry such a transaction from the start. At most
   * `conflictAttempts` in all, a short random wait between them so that the two do not meet
   * again in step; past the last, translate() makes the error a 503 with Retry-After.
   */
  async retryingConflicts<T>(write: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write()
      } catch (error) {
        if (attempt >= conflictAttempts || !this.dialect.isConflict?.(error)) throw error
        await setTimeout(conflictBackoffMs * attempt * (0.5 + Math.random()))
      }
    }
  }

  /**
   * Inside a write, waits for and holds `topic`'s lock until it commits; nothing to do where the
   * dialect's write transaction already serialises every writer (dialect.exclusive).
   */
  async exclusive(trx: Executor, topic: string): Promise<void> {
    await this.dialect.exclusive?.(trx, topic)
  }

  /** After a change was committed: this process's feed reads the log, and other processes' are told. */
  changed() {
    this.#wakeWatchers()
    this.dialect.notify?.()
  }

  /** Calls `wake` after this process's event writes and whenever the dialect hears of others'. */
  watch(wake: () => void): () => Promise<void> {
    this.#watchers.add(wake)
    this.#stopWatching ??= this.dialect.watch?.(() => this.#wakeWatchers())
    return async () => {
      this.#watchers.delete(wake)
      if (this.#watchers.size > 0) return
      const stop = this.#stopWatching
      this.#stopWatching = undefined
      await stop?.()
    }
  }

  async close() {
    this.#watchers.clear()
    await this.#stopWatching?.()
    await this.dialect.close()
  }

  #wakeWatchers() {
    for (const wake of this.#watchers) wake()
  }
}

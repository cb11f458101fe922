// Reads that no index bounds, run off the event loop: a few reader threads (node:worker_threads),
// each with its own read-only connection to the store's file, one statement at a time, under a
// time budget. better-sqlite3 is synchronous: on the main connection a scan of a million titles
// (`q=a`: ~7 s) would stop every other request, /health/live included.
//
// The budget covers the wait for a free reader and the statement. A read not answered within it
// is refused (`too_costly`, 503) at its deadline. SQLite cannot be interrupted through
// better-sqlite3 (its issue #707), and terminating a thread does not stop native code mid-step,
// so a statement that overruns runs to its end in its thread, its answer is thrown away and the
// thread stays busy meanwhile: at most `threads` statements ever run at once, and what waits for
// them waits no longer than the budget. No CPU work piles up beyond that.
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { CompiledQuery } from 'kysely'
import { DomainError } from '../../domain/errors.ts'
import type { ReaderStats } from '../event-store.ts'
import type { ReaderRequest, ReaderResponse, ReaderSettings } from './sqlite-reader-protocol.ts'

export interface ReaderOptions extends ReaderSettings {
  /** Reader threads: statements that may run at once. */
  readonly threads: number
  /** How long a read may take, waiting for a thread included, before it is refused, in ms. */
  readonly budgetMs: number
}

interface Read {
  readonly sql: string
  readonly parameters: readonly unknown[]
  readonly resolve: (rows: unknown[]) => void
  readonly reject: (error: unknown) => void
  /** Answered (or refused): a later answer from the thread is thrown away. */
  settled: boolean
  timer: NodeJS.Timeout | undefined
  /** When it joined the queue (performance.now()), if every thread was busy then; else undefined. */
  readonly queuedAt: number | undefined
}

interface Thread {
  worker: Worker | undefined
  /** The read the thread is running, also after its caller was refused. */
  running: Read | undefined
}

// The compiled file (.js) in production, the source (.ts) in tests and `npm run dev`, through tsx.
// Node 20 does not carry the process's `--import tsx` into a thread (the thread's loader finds no
// hooks, and fails on ".ts" even with it in execArgv): such a thread loads its entry through
// tsx's own tsImport instead.
const ownExtension = extname(fileURLToPath(import.meta.url))
const entry = new URL(`./sqlite-reader-thread${ownExtension}`, import.meta.url)
const newReader = (settings: ReaderSettings) => {
  if (ownExtension !== '.ts') return new Worker(entry, { workerData: settings })
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'))
  const load = `import(${tsx}).then((tsx) => tsx.tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(import.meta.url)}))`
  return new Worker(load, { eval: true, execArgv: [], workerData: settings })
}

export class SqliteReaders {
  readonly #options: ReaderOptions
  readonly #threads: Thread[]
  readonly #waiting: Read[] = []
  #nextId = 0
  #waits = 0
  #waitedMs = 0
  #overBudget = 0
  #crashed = 0
  #closed = false

  constructor(options: ReaderOptions) {
    this.#options = options
    // Started on the first read: a CLI command that never pages through a filter starts none.
    this.#threads = Array.from({ length: options.threads }, () => ({ worker: undefined, running: undefined }))
  }

  /** The rows of `query`, read in a reader thread; `too_costly` past the budget. */
  read<R>({ sql, parameters }: CompiledQuery<R>): Promise<R[]> {
    if (this.#closed) return Promise.reject(closing())
    return new Promise<R[]>((resolve, reject) => {
      const read: Read = {
        sql,
        parameters,
        resolve: resolve as (rows: unknown[]) => void,
        reject,
        settled: false,
        timer: undefined,
        queuedAt:
          this.#threads.every((thread) => thread.running) || this.#waiting.length > 0
            ? performance.now()
            : undefined,
      }
      if (read.queuedAt !== undefined) this.#waits++
      read.timer = setTimeout(() => this.#overrun(read), this.#options.budgetMs)
      this.#waiting.push(read)
      this.#dispatch()
    })
  }

  stats(): ReaderStats {
    // A read that waits until the budget ends is counted as over budget, not refused (refused:
    // PostgreSQL's shorter queue limit, postgres-costly.ts).
    return {
      overBudget: this.#overBudget,
      crashed: this.#crashed,
      queued: this.#waiting.length,
      waits: this.#waits,
      waitedMs: this.#waitedMs,
      refused: 0,
    }
  }

  /**
   * Refuses what waits and what runs, and ends the threads. A thread inside a statement ends when
   * the statement does (see the top of this file); the process does not wait for it.
   */
  async close(): Promise<void> {
    this.#closed = true
    for (const read of this.#waiting.splice(0)) settle(read, closing())
    const ending: Promise<unknown>[] = []
    for (const thread of this.#threads) {
      if (thread.running) settle(thread.running, closing())
      const worker = thread.worker
      thread.worker = undefined
      thread.running = undefined
      if (!worker) continue
      worker.unref()
      ending.push(worker.terminate())
    }
    // An idle thread ends at once; a busy one is left to end by itself, unreferenced.
    await Promise.race([Promise.all(ending), new Promise((resolve) => setTimeout(resolve, 100).unref())])
  }

  #overrun(read: Read) {
    if (read.settled) return
    const at = this.#waiting.indexOf(read)
    if (at >= 0) {
      this.#waiting.splice(at, 1)
      if (read.queuedAt !== undefined) this.#waitedMs += performance.now() - read.queuedAt
    }
    this.#overBudget++
    settle(
      read,
      new DomainError(
        'too_costly',
        `this search was too costly to answer within ${this.#options.budgetMs} ms; narrow it (a longer q, a shorter date range, a location_id) or try again later`,
      ),
    )
  }

  #dispatch() {
    for (const thread of this.#threads) {
      if (thread.running) continue
      const read = this.#waiting.shift()
      if (!read) return
      if (read.queuedAt !== undefined) this.#waitedMs += performance.now() - read.queuedAt
      thread.running = read
      const worker = thread.worker ?? this.#start(thread)
      thread.worker = worker
      worker.ref()
      worker.postMessage({
        id: ++this.#nextId,
        sql: read.sql,
        parameters: read.parameters,
      } satisfies ReaderRequest)
    }
  }

  #start(thread: Thread): Worker {
    const { path, busyTimeoutMs, cacheKib } = this.#options
    const settings: ReaderSettings = { path, busyTimeoutMs, cacheKib }
    const worker = newReader(settings)
    let failure: unknown
    worker.on('message', (message: ReaderResponse) => {
      if ('ready' in message) return
      const read = thread.running
      thread.running = undefined
      // An idle thread must not keep the process alive (a CLI command that read once).
      worker.unref()
      if (read) settle(read, 'rows' in message ? message.rows : readerError(message.error))
      this.#dispatch()
    })
    worker.on('error', (error) => {
      failure = error
    })
    worker.on('exit', (code) => {
      if (thread.worker !== worker) return // ended by close()
      // A thread never ends by itself: it crashed, or could not open the file. Its read is told
      // "unavailable" (503: the next try gets a new thread), never a 500.
      this.#crashed++
      thread.worker = undefined
      const read = thread.running
      thread.running = undefined
      if (read) {
        const unavailable = new DomainError('unavailable', 'the database reader stopped; try again shortly')
        unavailable.cause = failure ?? new Error(`reader thread exited with code ${code}`)
        settle(read, unavailable)
      }
      if (!this.#closed) this.#dispatch()
    })
    return worker
  }
}

function settle(read: Read, outcome: unknown[] | Error) {
  if (read.settled) return
  read.settled = true
  clearTimeout(read.timer)
  if (Array.isArray(outcome)) read.resolve(outcome)
  else read.reject(outcome)
}

const closing = () => new DomainError('unavailable', 'the database is closing')

/** The thread's error as better-sqlite3 would have thrown it, so the dialect's translate() applies. */
function readerError({ message, code }: { message: string; code: string | undefined }): Error {
  const error = new Error(message) as Error & { code?: string }
  if (code !== undefined) error.code = code
  return error
}

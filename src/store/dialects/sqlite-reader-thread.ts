// The entry of a reader thread (sqlite-readers.ts): its own read-only connection to the store's
// file, running one statement at a time for the main thread. better-sqlite3 is synchronous, so a
// statement that reads most of the table blocks this thread, not the event loop that serves HTTP.
// WAL lets it read beside the writer, and it sees every commit made before its statement began.
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import Sqlite from 'better-sqlite3'
import {
  cacheSize,
  type ReaderRequest,
  type ReaderResponse,
  type ReaderSettings,
} from './sqlite-reader-protocol.ts'

const { path, busyTimeoutMs, cacheKib } = workerData as ReaderSettings
const port = parentPort
if (!port) throw new Error('sqlite-reader-thread.ts runs only as a worker thread')

// A reader's statements are batch work; the event loop answers everyone. On Linux a thread's nice
// value is its own (setpriority(2), "Bugs"): this thread yields the CPU to the loop's thread
// when the cores are busy. Elsewhere it may apply to the process or be refused: then it is left.
if (process.platform === 'linux') {
  try {
    setPriority(10)
  } catch {}
}

const database = new Sqlite(path, { readonly: true, fileMustExist: true })
// Here waiting inside SQLite for a lock blocks no one else (in WAL a reader meets one only while
// another connection recovers the WAL or changes the journal mode).
database.pragma(`busy_timeout = ${Math.floor(busyTimeoutMs)}`)
database.pragma(cacheSize(cacheKib))

// The statements by SQL text, as the main connection keeps them (sqlite-driver.ts): a filtered
// page has one form per combination of filters and the needle's length class.
const kept = new Map<string, Sqlite.Statement>()
const maxKept = 64

function statement(sql: string): Sqlite.Statement {
  const found = kept.get(sql)
  if (found) {
    kept.delete(sql)
    kept.set(sql, found)
    return found
  }
  const prepared = database.prepare(sql)
  kept.set(sql, prepared)
  if (kept.size > maxKept) kept.delete(kept.keys().next().value as string)
  return prepared
}

port.on('message', ({ id, sql, parameters }: ReaderRequest) => {
  let answer: ReaderResponse
  try {
    answer = { id, rows: statement(sql).all(parameters) }
  } catch (error) {
    const { message, code } = error as { message?: unknown; code?: unknown }
    answer = { id, error: { message: String(message), code: typeof code === 'string' ? code : undefined } }
  }
  port.postMessage(answer)
})
port.postMessage({ ready: true } satisfies ReaderResponse)

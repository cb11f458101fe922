// The messages between the main thread and a reader thread (sqlite-readers.ts, sqlite-reader-thread.ts).

export interface ReaderSettings {
  /** The store's SQLite file. */
  readonly path: string
  /** How long the reader's connection waits inside SQLite for a lock, in ms (off the event loop). */
  readonly busyTimeoutMs: number
  /** The connection's page cache, in KiB. */
  readonly cacheKib: number
}

export interface ReaderRequest {
  readonly id: number
  readonly sql: string
  readonly parameters: readonly unknown[]
}

export type ReaderResponse =
  /** Sent once, when the connection is open. */
  | { readonly ready: true }
  | { readonly id: number; readonly rows: unknown[] }
  | { readonly id: number; readonly error: { readonly message: string; readonly code: string | undefined } }

/** The pragma that sets a connection's page cache, in KiB (a negative cache_size counts KiB). */
export const cacheSize = (kib: number) => `cache_size = -${Math.floor(kib)}`

// The one way each store reads the hot queries (an event or a location by id, a page and its
// total, a user, an API key), chosen once when the store opens from what its dialect can do:
//
// - at once (SQLite, dialect.readNow): the kept statement runs synchronously, past Kysely's
//   executor and its connection mutex (a GET by id: 7.2 µs -> 5.1 µs, dc70225). While a write
//   transaction is open on the one connection, or the file is locked, the same read waits its
//   turn through Kysely instead, since it must neither join nor see that transaction.
// - pooled (PostgreSQL, dialect.runPooled): a connection of the dialect's own pool, past
//   Kysely's layers of async functions (~29.5 µs -> ~24.7 µs of client CPU per read, ee518bd).
// - through Kysely, for a dialect that offers neither.
//
// A plain read (an event, a location, a page of them, outside a write: read-target.ts) may go
// where the dialect chooses instead of the pool: a fresh replica (dialect.readPlain).
import type { CompiledQuery } from 'kysely'
import type { DialectConnection } from './dialect-connection.ts'

/** A hot read's rows, synchronously where the dialect read them at once; errors untranslated. */
export type ReadRows = <R>(query: CompiledQuery<R>) => R[] | Promise<R[]>

export function hotReadPath(dialect: DialectConnection): ReadRows {
  const throughKysely = async <R>(query: CompiledQuery<R>) => (await dialect.db.executeQuery(query)).rows
  const { readNow, runPooled } = dialect
  if (readNow) return <R>(query: CompiledQuery<R>) => readNow(query) ?? throughKysely(query)
  if (runPooled) return runPooled
  return throughKysely
}

/** The path of a plain read: at once where the dialect can, else where it chooses (a replica). */
export function plainReadPath(dialect: DialectConnection): ReadRows {
  const { readNow, readPlain } = dialect
  if (!readPlain) return hotReadPath(dialect)
  if (readNow) return <R>(query: CompiledQuery<R>) => readNow(query) ?? readPlain(query)
  return readPlain
}

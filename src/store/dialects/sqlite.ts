// SQLite through better-sqlite3: one file, WAL, synchronous=FULL (a 2xx survives a power cut).
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Sqlite from 'better-sqlite3'
import { Kysely, SqliteDialect, sql } from 'kysely'
import type { DialectConnection, Executor } from '../kysely-store.ts'
import type { Database } from '../schema.ts'

export function openSqlite(path: string): DialectConnection {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const database = new Sqlite(path)
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = FULL')
  database.pragma('foreign_keys = ON')
  // Another process (the CLI beside a running server) may hold the write lock for a moment.
  database.pragma('busy_timeout = 5000')
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) })

  return {
    db,
    flavour: {
      idType: 'integer',
      // AUTOINCREMENT: ids of deleted rows are never handed out again.
      identity: (c) => c.primaryKey().autoIncrement(),
      maxParameters: 32_766,
    },
    // The Kysely SQLite driver serialises all use of its single connection, so holding it for the
    // whole transaction is enough within a process; IMMEDIATE takes the file lock up front so a
    // second process cannot make this transaction fail half-way with SQLITE_BUSY.
    write: (work) =>
      db.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn)
        try {
          const result = await work(conn as Executor)
          await sql`commit`.execute(conn)
          return result
        } catch (error) {
          if (database.inTransaction) await sql`rollback`.execute(conn)
          throw error
        }
      }),
    translate: (error) => error,
    close: () => db.destroy(),
  }
}

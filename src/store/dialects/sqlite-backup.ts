// Online backup of an SQLite database file through SQLite's backup API (better-sqlite3's
// `.backup()`): a consistent copy taken while other processes keep reading and writing it.
import { closeSync, fsyncSync, linkSync, openSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import Sqlite from 'better-sqlite3'
import type { BackupReport } from '../event-store.ts'

/** The backup capability of the SQLite database at `path`; none for an in-memory database. */
export function sqliteBackup(path: string): ((destination: string) => Promise<BackupReport>) | undefined {
  return path === ':memory:' ? undefined : (destination) => backupSqlite(path, destination)
}

/**
 * Copies the database at `source` to the new file `destination` (never overwritten: fails with
 * EEXIST), checks the copy and leaves it as one self-contained file. Either the complete,
 * checked copy appears at `destination` or nothing does.
 */
export async function backupSqlite(source: string, destination: string): Promise<BackupReport> {
  // Written beside the destination, so that publishing it is a link on the same file system.
  const partial = join(dirname(destination), `.${basename(destination)}.partial-${process.pid}`)
  const database = new Sqlite(source, { fileMustExist: true })
  try {
    const { n: tables } = database.prepare('select count(*) as n from sqlite_schema').get() as { n: number }
    if (tables === 0) throw new Error(`the database at ${source} is empty: there is nothing to back up`)
    // A write through another connection (the server's) restarts a backup that is copying step by
    // step, so a busy database might never finish. One step copies every page from one read
    // snapshot instead; in WAL mode that holds no lock the server's writers wait for.
    await database.backup(partial, { progress: () => 0x7fffffff })
  } finally {
    database.close()
  }
  try {
    const report = finishCopy(partial)
    // link(2) refuses to replace an existing file, unlike rename(2).
    linkSync(partial, destination)
    rmSync(partial)
    syncDirectory(dirname(destination))
    return report
  } catch (error) {
    rmSync(partial, { force: true })
    throw error
  }
}

/** Checks the copy and turns it into a single file (the source's WAL mode travels with its pages). */
function finishCopy(path: string): BackupReport {
  const copy = new Sqlite(path, { fileMustExist: true })
  try {
    copy.pragma('journal_mode = DELETE')
    const check = copy.pragma('quick_check', { simple: true })
    if (check !== 'ok') throw new Error(`the copy failed its integrity check: ${String(check)}`)
    const pages = Number(copy.pragma('page_count', { simple: true }))
    const pageSize = Number(copy.pragma('page_size', { simple: true }))
    return { pages, bytes: pages * pageSize }
  } finally {
    copy.close()
  }
}

/** Makes a new directory entry durable (POSIX: fsync the directory after creating a file in it). */
function syncDirectory(path: string) {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r')
    fsyncSync(fd)
  } catch {
    // Some platforms cannot open or fsync a directory; the copy itself is already synced.
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

// `ers backup FILE`: an online, consistent copy of the database, where the store can make one.
import { existsSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { KyselyStore } from '../store/kysely-store.ts'
import { CliError, exitFailure, exitUsage, firstLine } from './errors.ts'

export async function backup(store: KyselyStore, file: string): Promise<void> {
  // Asks what the store can do, not which database it is.
  if (!store.backup) {
    throw new CliError(
      'this database cannot be copied by ers backup, which copies SQLite files; back up PostgreSQL ' +
        'with pg_dump -Fc and restore with pg_restore (docs/operations.md, "Backup and restore")',
      exitUsage,
    )
  }
  const directory = dirname(resolve(file))
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new CliError(`the directory ${dirname(file)} does not exist`, exitUsage)
  }
  // A backup never replaces a file: not an older backup, and above all not the database itself.
  if (existsSync(file)) throw new CliError(`${file} already exists; name a new file`, exitUsage)
  const started = Date.now()
  let report: Awaited<ReturnType<NonNullable<KyselyStore['backup']>>>
  try {
    report = await store.backup(file)
  } catch (error) {
    throw new CliError(`backup failed: ${firstLine(error)}`, exitFailure, { cause: error })
  }
  const mib = (report.bytes / 1024 / 1024).toFixed(1)
  process.stdout.write(
    `backed up ${report.pages} pages (${mib} MiB) to ${file} in ${Date.now() - started} ms\n`,
  )
}

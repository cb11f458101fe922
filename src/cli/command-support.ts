// What the service commands of `ers` share: their options and invocation, and the ways they open
// the store, prepare it and talk to the terminal.
import type { CommandBase, OptionSpec } from '@event-resource-service/client/cli'
import { clientOptions } from '@event-resource-service/client/cli'
import type { Config } from '../config.ts'
import type { KyselyStore } from '../store/kysely-store.ts'

/**
 * Options of particular commands (every setting is also a flag of every command): the client
 * commands' (the client package's cli/command-table.ts), and the service commands' own. The
 * client's `password`, `name` and `address` serve here too: a user's password, and a location's
 * fields for `locations add`.
 */
export const commandOptions = {
  ...clientOptions,
  role: { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies Record<string, OptionSpec>
export type CommandOption = keyof typeof commandOptions

export interface Invocation {
  /** The operands, in the order the command's synopsis names them. */
  readonly operands: readonly string[]
  readonly options: Readonly<Partial<Record<CommandOption, string | boolean>>>
  readonly config: Config
}

/** A command that works on the service's database or runs it: it takes the service's settings. */
export interface ServiceCommand extends CommandBase<CommandOption> {
  readonly client?: false
  run(invocation: Invocation): Promise<void>
}

/**
 * Brings the schema up to date. Commands that add data also mark a new database as initialised,
 * so a server started on it later does not mix sample events into real ones.
 */
export async function prepare(store: KyselyStore, { addsData }: { addsData: boolean }) {
  await store.migrate()
  if (addsData) await store.initialiseOnce(() => [])
}

export async function withStore(config: Config, work: (store: KyselyStore) => Promise<void>): Promise<void> {
  const { openStore, storeOptions } = await import('../store/open-store.ts')
  // Commands read what they are about to change: on the primary, never a replica.
  const store = openStore(config.databaseUrl, storeOptions({ ...config, databaseReadUrl: undefined }))
  try {
    await work(store)
  } finally {
    await store.close()
  }
}

export const out = (line: string) => {
  process.stdout.write(`${line}\n`)
}

export const warn = (line: string) => {
  process.stderr.write(`ers: warning: ${line}\n`)
}

export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password: ')
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export function progressLine(total: number) {
  let shown = 0
  return (done: number) => {
    if (done - shown < 50_000 && done !== total) return
    shown = done
    const line = `imported ${done} of ${total} events (${Math.floor((done / Math.max(total, 1)) * 100)}%)`
    // On a terminal the line rewrites itself; in a log each report is a line of its own.
    process.stderr.write(process.stderr.isTTY ? `\r${line}` : `${line}\n`)
  }
}

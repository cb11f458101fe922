// The commands of `ers`: what each takes, what it does, and the usage text made from the same table.

import {
  type ClientCommand,
  type CommandBase,
  clientCommands,
  clientOptions,
  clientUsage,
  type OptionSpec,
  usageLines,
} from '@event-resource-service/client/cli'
import { hashPassword } from '../auth/passwords.ts'
import { type Config, environmentNames } from '../config.ts'
import { passwordProblem } from '../domain/password-policy.ts'
import { type Role, roles } from '../domain/types.ts'
import type { KyselyStore } from '../store/kysely-store.ts'
import { backup } from './backup.ts'
import { CliError } from './errors.ts'

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
interface ServiceCommand extends CommandBase<CommandOption> {
  readonly client?: false
  run(invocation: Invocation): Promise<void>
}

/** A service command, or a client command of the client package (the same table `ers-client` runs). */
export type Command = ServiceCommand | ClientCommand

export const commands: readonly Command[] = [
  {
    name: 'serve',
    operands: [],
    options: [],
    synopsis: '',
    help: 'run the HTTP service until SIGTERM',
    // Loaded only when used (here, the import schema and the store below): `ers --help` or a
    // usage error answers without loading the HTTP stack, the database drivers or TypeBox.
    run: async ({ config }) => (await import('../server.ts')).serve(config),
  },
  {
    name: 'migrate',
    operands: [],
    options: [],
    synopsis: '',
    help: 'bring the database schema up to date',
    run: ({ config }) =>
      withStore(config, async (store) => {
        const applied = await store.migrate()
        out(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date')
      }),
  },
  {
    name: 'users add',
    operands: ['NAME'],
    options: ['role', 'password'],
    synopsis: '[--role editor|reader] [--password P]',
    help:
      'add a user, or change their role and password\n' +
      '(role: editor unless given; --password is the new\n' +
      "user's; without it, it is read from standard input)",
    run: async ({ operands: [name = ''], options, config }) => {
      const role = (options.role ?? 'editor') as Role
      if (!roles.includes(role)) throw new CliError(`--role must be one of ${roles.join(', ')}`)
      if (!/^[^:\s][^:]{0,99}$/.test(name) || /\s$/.test(name)) {
        throw new CliError('NAME must be 1–100 characters, without ":" or surrounding spaces')
      }
      const password =
        typeof options.password === 'string' ? options.password : (await readStdin()).replace(/\r?\n$/, '')
      const weak = passwordProblem(password)
      if (weak) throw new CliError(weak)
      const hash = await hashPassword(password, config)
      await withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        const user = await store.putUser(name, role, hash)
        out(`user "${user.name}" saved with role ${user.role}`)
      })
    },
  },
  {
    name: 'users remove',
    operands: ['NAME'],
    options: [],
    synopsis: '',
    help: 'remove a user',
    run: ({ operands: [name = ''], config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        if (!(await store.removeUser(name))) throw new CliError(`there is no user "${name}"`)
        out(`user "${name}" removed`)
      }),
  },
  {
    name: 'users list',
    operands: [],
    options: ['json'],
    synopsis: '[--json]',
    help: 'list every user and their role\n(--json: an array of {"name", "role"})',
    run: ({ options, config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        // Only what an operator needs: the password hash never leaves the store this way.
        const users = (await store.listUsers()).map(({ name, role }) => ({ name, role }))
        if (options.json) return out(JSON.stringify(users))
        const width = Math.max(0, ...users.map((u) => [...u.name].length))
        for (const { name, role } of users) out(`${name}${' '.repeat(width - [...name].length)}  ${role}`)
      }),
  },
  {
    name: 'keys add',
    operands: ['NAME'],
    options: ['role', 'json'],
    synopsis: '[--role editor|reader] [--json]',
    help:
      'add an API key for signed requests and print its id\n' +
      'and secret, once (role: editor unless given; needs\n' +
      'KEY_ENCRYPTION_KEY; --json: {"id", "secret"}); a name\n' +
      'already taken is warned about and added all the same',
    run: async ({ operands: [name = ''], options, config }) => {
      const role = (options.role ?? 'editor') as Role
      if (!roles.includes(role)) throw new CliError(`--role must be one of ${roles.join(', ')}`)
      const { addKey, encryptionKeyOf, keyNameProblem } = await import('./keys.ts')
      const problem = keyNameProblem(name)
      if (problem) throw new CliError(problem)
      const encryptionKey = encryptionKeyOf(config)
      await withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        await addKey(store, { name, role, json: options.json === true, encryptionKey })
      })
    },
  },
  {
    name: 'keys list',
    operands: [],
    options: ['json'],
    synopsis: '[--json]',
    help:
      'list every API key: id, role, created, revoked, name\n' +
      '(never a secret; --json: an array of {"id", "name",\n' +
      '"role", "created_at", "revoked_at"})',
    run: ({ options, config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        await (await import('./keys.ts')).listKeys(store, { json: options.json === true })
      }),
  },
  {
    name: 'keys revoke',
    operands: ['ID'],
    options: [],
    synopsis: '',
    help: 'revoke an API key: every instance refuses it at once',
    run: ({ operands: [id = ''], config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        await (await import('./keys.ts')).revokeKey(store, id)
      }),
  },
  {
    name: 'locations add',
    operands: [],
    options: ['name', 'address'],
    synopsis: '--name N --address A',
    help: 'add a location and print its id',
    run: async ({ options, config }) => {
      const name = typeof options.name === 'string' ? options.name.trim() : ''
      const address = typeof options.address === 'string' ? options.address.trim() : ''
      if (!name || !address) throw new CliError('locations add needs --name N and --address A')
      // The rules of the import format, so that both ways of adding a location agree.
      const { locationProblems } = await import('./import-file.ts')
      const problems = locationProblems({ name, address })
      if (problems.length > 0) throw new CliError(problems.join('; '))
      await withStore(config, async (store) => {
        await prepare(store, { addsData: true })
        // Two locations alike are allowed (two halls at one address may share a name), but more
        // often a command run twice: say so, and add it all the same.
        const twin = await store.findLocation({ name, address })
        if (twin) warn(`location ${twin.id} already has this name and address; adding another`)
        out(String((await store.createLocation({ name, address })).id))
      })
    },
  },
  {
    name: 'locations list',
    operands: [],
    options: ['json'],
    synopsis: '[--json]',
    help: 'list every location: id, name, address\n(--json: an array of {"id", "name", "address"})',
    run: ({ options, config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        const locations: { id: number; name: string; address: string }[] = []
        // Page by page, in id order, as GET /locations serves them.
        for (let page = 1; ; page++) {
          const { total, locations: found } = await store.listLocations({ page, perPage: 100 })
          locations.push(...found.map(({ id, name, address }) => ({ id, name, address })))
          if (found.length === 0 || locations.length >= total) break
        }
        if (options.json) return out(JSON.stringify(locations))
        const idWidth = Math.max(0, ...locations.map((l) => String(l.id).length))
        const nameWidth = Math.max(0, ...locations.map((l) => [...l.name].length))
        for (const { id, name, address } of locations) {
          out(
            `${String(id).padStart(idWidth)}  ${name}${' '.repeat(nameWidth - [...name].length)}  ${address}`,
          )
        }
      }),
  },
  {
    name: 'import',
    operands: ['FILE'],
    options: [],
    synopsis: '',
    help:
      'load locations and their events from a JSON file\n' +
      '(PostgreSQL: in one transaction; SQLite: in short ones\n' +
      'beside live writes; format: docs/import.schema.json,\n' +
      'sample: examples/events.json)',
    run: async ({ operands: [file = ''], config }) => {
      const { readImportFile } = await import('./import-file.ts')
      const { locations, events } = await readImportFile(file)
      await withStore(config, async (store) => {
        await prepare(store, { addsData: true })
        const result = await store.importLocations(locations, progressLine(events))
        if (process.stderr.isTTY) process.stderr.write('\n')
        out(`imported ${result.locations} locations and ${result.events} events`)
      })
    },
  },
  {
    name: 'recount',
    operands: [],
    options: [],
    synopsis: '',
    help:
      'count the events from their rows, print the kept counts\n' +
      'that differed (total, date buckets) and repair them in\n' +
      'one transaction; safe while the service runs',
    run: ({ config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        await (await import('./recount.ts')).recountEvents(store, out)
      }),
  },
  {
    name: 'backup',
    operands: ['FILE'],
    options: [],
    synopsis: '',
    help: 'copy the SQLite database to the new file FILE,\nwhile the service keeps running',
    run: ({ operands: [file = ''], config }) => withStore(config, (store) => backup(store, file)),
  },
  ...clientCommands,
]

/** The usage text, from the table above and the settings. */
export function usage(): string {
  const rows = Object.entries(environmentNames).map(([key, env]) => [`  --${kebab(key)}`, env] as const)
  // Each flag and its variable on one line, however long the longest flag.
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2
  const settings = rows.map(([flag, env]) => flag.padEnd(width) + env)
  return `Usage: ers <command> [options]

Commands:
${usageLines(commands)}

Settings (flag, or environment variable):
${settings.join('\n')}

${clientUsage}
Exit status: 0 done; 1 failed (the database or the service could not be
reached, the service refused); 2 the command line or the input is wrong.
`
}

export function kebab(key: string) {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}

/**
 * Brings the schema up to date. Commands that add data also mark a new database as initialised,
 * so a server started on it later does not mix sample events into real ones.
 */
async function prepare(store: KyselyStore, { addsData }: { addsData: boolean }) {
  await store.migrate()
  if (addsData) await store.initialiseOnce(() => [])
}

async function withStore(config: Config, work: (store: KyselyStore) => Promise<void>): Promise<void> {
  const { openStore, storeOptions } = await import('../store/open-store.ts')
  // Commands read what they are about to change: on the primary, never a replica.
  const store = openStore(config.databaseUrl, storeOptions({ ...config, databaseReadUrl: undefined }))
  try {
    await work(store)
  } finally {
    await store.close()
  }
}

const out = (line: string) => {
  process.stdout.write(`${line}\n`)
}

const warn = (line: string) => {
  process.stderr.write(`ers: warning: ${line}\n`)
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password: ')
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function progressLine(total: number) {
  let shown = 0
  return (done: number) => {
    if (done - shown < 50_000 && done !== total) return
    shown = done
    const line = `imported ${done} of ${total} events (${Math.floor((done / Math.max(total, 1)) * 100)}%)`
    // On a terminal the line rewrites itself; in a log each report is a line of its own.
    process.stderr.write(process.stderr.isTTY ? `\r${line}` : `${line}\n`)
  }
}

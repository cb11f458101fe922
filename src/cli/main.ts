// `ers`: the command-line tool. Every setting is also a flag (--database-url, --port, …), which
// wins over the environment.
import { parseArgs } from 'node:util'
import { hashPassword } from '../auth/passwords.ts'
import { type Config, ConfigError, configFromEnvironment, environmentNames } from '../config.ts'
import { passwordProblem } from '../domain/password-policy.ts'
import { type Role, roles } from '../domain/types.ts'
import { serve } from '../server.ts'
import { openStore, storeOptions } from '../store/open-store.ts'
import { ImportError, readImportFile } from './import-file.ts'

const usage = `Usage: ers <command> [options]

Commands:
  serve                                   run the HTTP service
  migrate                                 bring the database schema up to date
  users add NAME [--role editor|reader] [--password P]
                                          add a user or change their role and password
                                          (the password is read from standard input without --password)
  users remove NAME                       remove a user
  locations add --name N --address A      add a location and print its id
  import FILE                             load {"locations":[{"name","address","events":[{"title","date"}]}]}

Settings (flag, or environment variable):
${Object.entries(environmentNames)
  .map(([key, env]) => `  --${kebab(key)}`.padEnd(28) + env)
  .join('\n')}
`

function kebab(key: string) {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      role: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      address: { type: 'string' },
      ...Object.fromEntries(
        Object.keys(environmentNames).map((key) => [kebab(key), { type: 'string' as const }]),
      ),
    },
  })
  if (values.help || positionals.length === 0) {
    process.stdout.write(usage)
    return positionals.length === 0 && !values.help ? 2 : 0
  }
  const flags = Object.fromEntries(
    Object.keys(environmentNames).map((key) => [
      key,
      values[kebab(key) as keyof typeof values] as string | undefined,
    ]),
  ) as Partial<Record<keyof Config, string>>
  const config = configFromEnvironment(process.env, flags)
  const [command, sub, ...rest] = positionals

  const grouped = command === 'users' || command === 'locations'
  switch (grouped ? `${command} ${sub ?? ''}` : command) {
    case 'serve':
      await serve(config)
      return 0
    case 'migrate':
      return withStore(config, async (store) => {
        const applied = await store.migrate()
        process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n')
      })
    case 'users add': {
      const name = single(rest, 'users add NAME')
      const role = (values.role ?? 'editor') as Role
      if (!roles.includes(role)) throw new UsageError(`--role must be one of ${roles.join(', ')}`)
      const password = values.password ?? (await readStdin()).replace(/\r?\n$/, '')
      const weak = passwordProblem(password)
      if (weak) throw new UsageError(weak)
      if (!/^[^:\s][^:]{0,99}$/.test(name) || /\s$/.test(name)) {
        throw new UsageError('NAME must be 1–100 characters, without ":" or surrounding spaces')
      }
      const hash = await hashPassword(password)
      return withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        const user = await store.putUser(name, role, hash)
        process.stdout.write(`user "${user.name}" saved with role ${user.role}\n`)
      })
    }
    case 'users remove': {
      const name = single(rest, 'users remove NAME')
      return withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        if (!(await store.removeUser(name))) throw new UsageError(`there is no user "${name}"`)
        process.stdout.write(`user "${name}" removed\n`)
      })
    }
    case 'locations add': {
      const name = values.name?.trim()
      const address = values.address?.trim()
      if (!name || !address) throw new UsageError('locations add needs --name N and --address A')
      return withStore(config, async (store) => {
        await prepare(store, { addsData: true })
        const location = await store.createLocation({ name, address })
        process.stdout.write(`${location.id}\n`)
      })
    }
    case 'import': {
      if (!sub || rest.length > 0) throw new UsageError('usage: ers import FILE')
      const { locations, events } = await readImportFile(sub)
      return withStore(config, async (store) => {
        await prepare(store, { addsData: true })
        const progress = progressLine(events)
        const result = await store.importLocations(locations, progress)
        if (process.stderr.isTTY) process.stderr.write('\n')
        process.stdout.write(`imported ${result.locations} locations and ${result.events} events\n`)
      })
    }
    default:
      throw new UsageError(`unknown command "${positionals.join(' ')}"; see ers --help`)
  }
}

/**
 * Brings the schema up to date. Commands that add data also mark a new database as initialised,
 * so a server started on it later does not mix sample events into real ones.
 */
async function prepare(store: ReturnType<typeof openStore>, { addsData }: { addsData: boolean }) {
  await store.migrate()
  if (addsData) await store.initialiseOnce(() => [])
}

function single(rest: string[], form: string): string {
  if (rest.length !== 1 || !rest[0]) throw new UsageError(`usage: ers ${form}`)
  return rest[0]
}

async function withStore(config: Config, work: (store: ReturnType<typeof openStore>) => Promise<void>) {
  const store = openStore(config.databaseUrl, storeOptions(config))
  try {
    await work(store)
    return 0
  } finally {
    await store.close()
  }
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

try {
  process.exitCode = await main(process.argv.slice(2))
} catch (error) {
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof ImportError) {
    process.stderr.write(`ers: ${error.message}\n`)
    process.exitCode = 2
  } else {
    process.stderr.write(`ers: ${(error as Error).stack ?? error}\n`)
    process.exitCode = 1
  }
}

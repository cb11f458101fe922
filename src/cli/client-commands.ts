// The client commands of `ers` (`events …`, `locations get`): they speak HTTP to a running
// service through the package's own client (src/client), where the other commands open the
// database. Where the service is and who is asking come from flags or ERS_* variables.
import type { EventServiceClient } from '../client/index.ts'
import { eventTable, locationTable, printJson, printLine } from './client-output.ts'
import type { Command, CommandOption, Invocation } from './commands.ts'
import { CliError, exitFailure, UsageError } from './errors.ts'

/** Where `ers` finds the service when neither --url nor ERS_URL says: the server's own default. */
export const defaultServiceUrl = 'http://localhost:8080'

/** The flags every client command takes. */
const connectionOptions: CommandOption[] = ['url', 'user', 'password', 'key', 'secret']

type Options = Invocation['options']

/** The flag's value, else the variable's; an empty variable counts as unset. */
function setting(options: Options, flag: CommandOption, variable: string): string | undefined {
  const value = options[flag]
  if (typeof value === 'string') return value
  const env = process.env[variable]
  return env === undefined || env === '' ? undefined : env
}

/**
 * The client for --url and the credentials: an API key (--key/--secret, ERS_KEY/ERS_SECRET)
 * signs, else a user (--user/--password, ERS_USER/ERS_PASSWORD) uses Basic. Flags win over the
 * environment as a pair, so `--user` on the command line is not mixed with an ERS_KEY.
 */
export async function connect(options: Options): Promise<EventServiceClient> {
  const url = setting(options, 'url', 'ERS_URL') ?? defaultServiceUrl
  const base = URL.canParse(url) ? new URL(url) : undefined
  if (base?.protocol !== 'http:' && base?.protocol !== 'https:') {
    throw new UsageError(`--url must be an http:// or https:// URL, not "${url}"`)
  }
  const flagged = (names: CommandOption[]) => names.some((name) => options[name] !== undefined)
  const fromFlags = flagged(['key', 'secret']) ? 'key' : flagged(['user', 'password']) ? 'user' : undefined
  const kind = fromFlags ?? (process.env.ERS_KEY ? 'key' : process.env.ERS_USER ? 'user' : undefined)
  const { EventServiceClient } = await import('../client/index.ts')
  if (kind === 'key') {
    const keyId = setting(options, 'key', 'ERS_KEY')
    const secret = setting(options, 'secret', 'ERS_SECRET')
    if (!keyId || !secret)
      throw new UsageError('an API key needs both --key and --secret (or ERS_KEY and ERS_SECRET)')
    return new EventServiceClient({ baseUrl: base, credentials: { keyId, secret } })
  }
  if (kind === 'user') {
    const user = setting(options, 'user', 'ERS_USER')
    const password = setting(options, 'password', 'ERS_PASSWORD')
    if (!user || password === undefined) {
      throw new UsageError('a user needs both --user and --password (or ERS_USER and ERS_PASSWORD)')
    }
    return new EventServiceClient({ baseUrl: base, credentials: { user, password } })
  }
  return new EventServiceClient({ baseUrl: base })
}

/** An integer operand or flag value of at least `min` (an id, a page: 1). */
function integer(text: string | boolean | undefined, what: string, min = 1): number | undefined {
  if (text === undefined) return undefined
  const value = Number(text)
  if (typeof text !== 'string' || !/^\d{1,16}$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${what} must be an integer of at least ${min}, not "${text}"`)
  }
  return value
}

const text = (value: string | boolean | undefined) => (typeof value === 'string' ? value : undefined)

/** Runs a client command, telling its failures as `ers` tells any: one line, an exit status. */
async function speaking(
  options: Options,
  work: (client: EventServiceClient) => Promise<void>,
): Promise<void> {
  const client = await connect(options)
  try {
    await work(client)
  } catch (error) {
    throw await explain(error, client)
  }
}

/** The service's problem (400 and 422, the input, exit 2; others exit 1), or why it could not be asked. */
async function explain(error: unknown, client: EventServiceClient): Promise<unknown> {
  const { ClientError, NetworkError, ProblemError } = await import('../client/index.ts')
  if (error instanceof ProblemError) {
    const fields = error.errors.map((e) => `\n  ${e.pointer || '/'}: ${e.detail}`).join('')
    const exit = error.status === 400 || error.status === 422 ? 2 : exitFailure
    return new CliError(`${error.status} ${error.title}: ${error.detail}${fields}`, exit, { cause: error })
  }
  if (error instanceof NetworkError) {
    return new CliError(
      `cannot reach the service at ${client.baseUrl.href} (${error.message}); set --url or ERS_URL`,
      exitFailure,
      { cause: error },
    )
  }
  if (error instanceof ClientError) return new CliError(error.message, exitFailure, { cause: error })
  return error
}

const eventFields = (options: Options) => ({
  ...(options.title !== undefined && { title: text(options.title) }),
  ...(options.date !== undefined && { date: text(options.date) }),
  ...(options.location !== undefined && { location_id: integer(options.location, '--location') }),
})

export const clientCommands: readonly Command[] = [
  {
    client: true,
    name: 'events list',
    operands: [],
    options: [...connectionOptions, 'page', 'per-page', 'all', 'location', 'from', 'to', 'q', 'table'],
    synopsis: '[--page N] [--per-page M] [--all] [--table] [filters]',
    help:
      'a page of events as the service sends it; --all:\n' +
      'every event found, one JSON line each; filters:\n' +
      '--location ID, --from D, --to D, --q TEXT',
    run: ({ options }) =>
      speaking(options, async (client) => {
        const query = {
          perPage: integer(options['per-page'], '--per-page'),
          locationId: integer(options.location, '--location'),
          from: text(options.from),
          to: text(options.to),
          q: text(options.q),
        }
        if (options.all) {
          if (options.page !== undefined) throw new UsageError('--all reads every page: leave out --page')
          const events = []
          for await (const event of client.events.all(query)) {
            if (options.table) events.push(event)
            else printJson(event)
          }
          if (options.table) printLine(eventTable(events))
          return
        }
        const page = await client.events.list({ ...query, page: integer(options.page, '--page') })
        if (!options.table) return printJson(page.representation)
        printLine(eventTable(page.items))
        printLine(`(${page.items.length} of ${page.total} events)`)
      }),
  },
  {
    client: true,
    name: 'events get',
    operands: ['ID'],
    options: [...connectionOptions, 'table'],
    synopsis: '[--table]',
    help: 'one event',
    run: ({ operands: [id], options }) =>
      speaking(options, async (client) => {
        const event = await client.events.get(integer(id, 'ID') as number)
        printLine(options.table ? eventTable([event]) : JSON.stringify(event))
      }),
  },
  {
    client: true,
    name: 'events create',
    operands: [],
    options: [...connectionOptions, 'title', 'date', 'location', 'table'],
    synopsis: '--title T --date D --location ID',
    help: 'create an event and print it (needs an editor)',
    run: ({ options }) =>
      speaking(options, async (client) => {
        const { title, date, location_id } = eventFields(options)
        if (title === undefined || date === undefined || location_id === undefined) {
          throw new UsageError('events create needs --title T, --date D and --location ID')
        }
        const event = await client.events.create({ title, date, location_id })
        printLine(options.table ? eventTable([event]) : JSON.stringify(event))
      }),
  },
  {
    client: true,
    name: 'events update',
    operands: ['ID'],
    options: [...connectionOptions, 'title', 'date', 'location', 'table'],
    synopsis: '[--title T] [--date D] [--location ID]',
    help:
      'change the fields given: reads the event, then sends a\n' +
      'merge patch with If-Match its ETag; prints the result',
    run: ({ operands: [id], options }) =>
      speaking(options, async (client) => {
        const changes = eventFields(options)
        const eventId = integer(id, 'ID') as number
        if (Object.keys(changes).length === 0) {
          throw new UsageError('events update needs at least one of --title, --date, --location')
        }
        const event = await client.events.patch(await client.events.get(eventId), changes)
        printLine(options.table ? eventTable([event]) : JSON.stringify(event))
      }),
  },
  {
    client: true,
    name: 'events delete',
    operands: ['ID'],
    options: connectionOptions,
    synopsis: '',
    help: 'delete an event (read first, deleted with If-Match)',
    run: ({ operands: [id], options }) =>
      speaking(options, async (client) => {
        await client.events.delete(await client.events.get(integer(id, 'ID') as number))
      }),
  },
  {
    client: true,
    name: 'events watch',
    operands: [],
    options: [...connectionOptions, 'after'],
    synopsis: '[--after N]',
    help:
      'the change feed: one JSON line per change,\n' +
      '{"event", "id", "data"}, until interrupted (Ctrl-C\n' +
      'exits 0); reconnects by itself, missing nothing;\n' +
      '--after N: first the kept changes after change N',
    run: ({ options }) =>
      speaking(options, async (client) => {
        const stop = new AbortController()
        const interrupt = () => stop.abort()
        process.once('SIGINT', interrupt).once('SIGTERM', interrupt)
        try {
          const after = integer(options.after, '--after', 0)
          const feed = client.events.changes({
            ...(after !== undefined && { lastEventId: after }),
            signal: stop.signal,
            onReconnect: ({ delayMs, reason }) =>
              process.stderr.write(
                `ers: the change feed was interrupted (${(reason as Error)?.message ?? reason}); ` +
                  `reconnecting in ${Math.ceil(delayMs / 100) / 10} s\n`,
              ),
          })
          for await (const change of feed) {
            const data = change.kind === 'reset' ? { links: change.links } : change.event
            printJson({ event: change.kind, id: change.id, data })
          }
        } finally {
          process.off('SIGINT', interrupt).off('SIGTERM', interrupt)
        }
      }),
  },
  {
    client: true,
    name: 'locations get',
    operands: ['ID'],
    options: [...connectionOptions, 'table'],
    synopsis: '[--table]',
    help: 'one location, from the service',
    run: ({ operands: [id], options }) =>
      speaking(options, async (client) => {
        const location = await client.locations.get(integer(id, 'ID') as number)
        printLine(options.table ? locationTable([location]) : JSON.stringify(location))
      }),
  },
]

/** The usage's paragraph on the client commands' connection. */
export const clientUsage = `Client commands (events …, locations get) speak HTTP to a running service:
  --url U                 ERS_URL (default ${defaultServiceUrl})
  --user U --password P   ERS_USER, ERS_PASSWORD: HTTP Basic, for writes
  --key K --secret S      ERS_KEY, ERS_SECRET: signed requests (a key wins over a user)
  --table                 a table for people instead of JSON
`

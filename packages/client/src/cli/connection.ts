// What every client command shares: where the service is and who is asking (flags, or ERS_*
// variables), the client made from them, operands read as integers, and the client's failures told
// as `ers` tells any: one line and an exit status.
import { basename } from 'node:path'
import type { EventServiceClient } from '../index.ts'
import type { ClientOption, OptionValues } from './command-table.ts'
import { CliError, exitFailure, UsageError } from './errors.ts'

/** The command that runs, for what it prints itself: `ers` (the server's) or `ers-client`. */
export const programName = () => basename(process.argv[1] ?? 'ers').replace(/\.js$/, '')

/** Where `ers` finds the service when neither --url nor ERS_URL says: the server's own default. */
export const defaultServiceUrl = 'http://localhost:8080'

/** The flags every client command takes. */
export const connectionOptions: ClientOption[] = ['url', 'user', 'password', 'key', 'secret']

export type Options = OptionValues<ClientOption>

/** The flag's value, else the variable's; an empty variable counts as unset. */
function setting(options: Options, flag: ClientOption, variable: string): string | undefined {
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
  const flagged = (names: ClientOption[]) => names.some((name) => options[name] !== undefined)
  const fromFlags = flagged(['key', 'secret']) ? 'key' : flagged(['user', 'password']) ? 'user' : undefined
  const kind = fromFlags ?? (process.env.ERS_KEY ? 'key' : process.env.ERS_USER ? 'user' : undefined)
  const { EventServiceClient } = await import('../index.ts')
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
export function integer(text: string | boolean | undefined, what: string, min = 1): number | undefined {
  if (text === undefined) return undefined
  const value = Number(text)
  if (typeof text !== 'string' || !/^\d{1,16}$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${what} must be an integer of at least ${min}, not "${text}"`)
  }
  return value
}

export const text = (value: string | boolean | undefined) => (typeof value === 'string' ? value : undefined)

/** Runs a client command, telling its failures as `ers` tells any: one line, an exit status. */
export async function speaking(
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
  const { ClientError, NetworkError, ProblemError } = await import('../index.ts')
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

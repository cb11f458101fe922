// What a command is, and what both command-line tools make from a table of them: the usage lines,
// the command a command line names, and the options it may take. The client's table
// (client-commands.ts) and the server's (its cli/commands.ts, which adds the client's) are both
// built on this module, so neither table imports the other.
import { parseArgs } from 'node:util'
import { isParseArgsError, UsageError } from './errors.ts'

export interface OptionSpec {
  readonly type: 'string' | 'boolean'
}

/** The options of the client commands (the server adds its own to these). */
export const clientOptions = {
  url: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  key: { type: 'string' },
  secret: { type: 'string' },
  page: { type: 'string' },
  'per-page': { type: 'string' },
  all: { type: 'boolean' },
  title: { type: 'string' },
  date: { type: 'string' },
  location: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  q: { type: 'string' },
  name: { type: 'string' },
  address: { type: 'string' },
  table: { type: 'boolean' },
  after: { type: 'string' },
} as const satisfies Record<string, OptionSpec>
export type ClientOption = keyof typeof clientOptions

export type OptionValues<Option extends string> = Readonly<Partial<Record<Option, string | boolean>>>

export interface CommandBase<Option extends string = string> {
  /** One or two words: `migrate`, `events list`. */
  readonly name: string
  /** Names of the operands after the command words (`NAME`, `ID`); each is required. */
  readonly operands: readonly string[]
  readonly options: readonly Option[]
  /** The rest of the synopsis line after the operands, and what the command does. */
  readonly synopsis: string
  readonly help: string
}

export interface ClientInvocation {
  /** The operands, in the order the command's synopsis names them. */
  readonly operands: readonly string[]
  readonly options: OptionValues<ClientOption>
}

/**
 * A client command: it speaks to a running service over HTTP, so the service's settings are
 * neither read from the environment nor taken as flags.
 */
export interface ClientCommand extends CommandBase<ClientOption> {
  readonly client: true
  run(invocation: ClientInvocation): Promise<void>
}

/** The Commands paragraph of a usage text: synopsis and help, the help in a column. */
export function usageLines(commands: readonly CommandBase[]): string {
  return commands
    .flatMap((c) => {
      const synopsis = [c.name, ...c.operands, c.synopsis].filter(Boolean).join(' ')
      const [first = '', ...rest] = c.help.split('\n')
      const head =
        synopsis.length < 38
          ? [`  ${synopsis.padEnd(38)}${first}`]
          : [`  ${synopsis}`, `${' '.repeat(40)}${first}`]
      return [...head, ...rest.map((line) => `${' '.repeat(40)}${line}`)]
    })
    .join('\n')
}

/** parseArgs, strict, with its complaints as usage errors. */
export function parseCommandLine<O extends Record<string, OptionSpec>>(argv: string[], options: O) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { help: { type: 'boolean', short: 'h' }, ...options },
    })
  } catch (error) {
    // Unknown option, option without its value, value given to a boolean flag, …
    if (isParseArgsError(error)) {
      const first = error.message.split('. ')[0] ?? error.message
      throw new UsageError(first.charAt(0).toLowerCase() + first.slice(1))
    }
    throw error
  }
}

/** The command that `positionals` start with, and the operands after its name. */
export function findCommand<C extends CommandBase>(
  commands: readonly C[],
  positionals: readonly string[],
  program: string,
): { command: C; operands: string[] } {
  if (positionals.length === 0) throw new UsageError('no command given')
  const two = positionals.slice(0, 2).join(' ')
  const command = commands.find((c) => c.name === two) ?? commands.find((c) => c.name === positionals[0])
  if (!command) {
    const groups = new Set(commands.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]))
    const group = positionals[0] ?? ''
    if (groups.has(group) && positionals.length === 1) {
      const verbs = commands.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name.split(' ')[1])
      throw new UsageError(`missing what to do: ${program} ${group} ${verbs.join('|')}`)
    }
    throw new UsageError(`unknown command "${groups.has(group) ? two : group}"`)
  }
  const operands = positionals.slice(command.name.split(' ').length)
  const synopsis = [program, command.name, ...command.operands].join(' ')
  if (operands.length < command.operands.length) {
    throw new UsageError(`missing ${command.operands[operands.length]}: ${synopsis}`)
  }
  if (operands.length > command.operands.length) {
    throw new UsageError(`unexpected argument "${operands[command.operands.length]}": ${synopsis}`)
  }
  return { command, operands: [...operands] }
}

/** The values of the options given, each checked to be one of the command's. */
export function commandOptionValues<Option extends string>(
  command: CommandBase,
  known: readonly Option[],
  values: Readonly<Record<string, unknown>>,
  program: string,
): OptionValues<Option> {
  const options: Partial<Record<Option, string | boolean>> = {}
  for (const option of known) {
    const value = values[option]
    if (value === undefined) continue
    if (!command.options.includes(option)) {
      throw new UsageError(`--${option} is not an option of ${program} ${command.name}`)
    }
    options[option] = value as string | boolean
  }
  return options
}

// `ers`: the command-line tool. Every setting is also a flag (--database-url, --port, …), which
// wins over the environment. Exit status: 0 done, 1 failed, 2 wrong command line or input.
import { parseArgs } from 'node:util'
import { type Config, configFromEnvironment, environmentNames } from '../config.ts'
import { unsupportedNode } from '../supported-node.ts'
import { type Command, type CommandOption, commandOptions, commands, kebab, usage } from './commands.ts'
import { describeFailure, exitUsage, isParseArgsError, UsageError } from './errors.ts'

const settingFlags = Object.fromEntries(
  Object.keys(environmentNames).map((key) => [kebab(key), { type: 'string' as const }]),
)

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { help: { type: 'boolean', short: 'h' }, ...commandOptions, ...settingFlags },
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
function find(positionals: string[]): { command: Command; operands: string[] } {
  const two = positionals.slice(0, 2).join(' ')
  const command = commands.find((c) => c.name === two) ?? commands.find((c) => c.name === positionals[0])
  if (!command) {
    const groups = new Set(commands.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]))
    const group = positionals[0] ?? ''
    if (groups.has(group) && positionals.length === 1) {
      const verbs = commands.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name.split(' ')[1])
      throw new UsageError(`missing what to do: ers ${group} ${verbs.join('|')}`)
    }
    throw new UsageError(`unknown command "${groups.has(group) ? two : group}"`)
  }
  const operands = positionals.slice(command.name.split(' ').length)
  const synopsis = ['ers', command.name, ...command.operands].join(' ')
  if (operands.length < command.operands.length) {
    throw new UsageError(`missing ${command.operands[operands.length]}: ${synopsis}`)
  }
  if (operands.length > command.operands.length) {
    throw new UsageError(`unexpected argument "${operands[command.operands.length]}": ${synopsis}`)
  }
  return { command, operands }
}

let config: Config | undefined

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv)
  if (values.help) {
    process.stdout.write(usage())
    return 0
  }
  if (positionals.length === 0) throw new UsageError('no command given')
  const { command, operands } = find(positionals)
  const options: Partial<Record<CommandOption, string | boolean>> = {}
  for (const option of Object.keys(commandOptions) as CommandOption[]) {
    if (values[option] === undefined) continue
    if (!command.options.includes(option)) {
      throw new UsageError(`--${option} is not an option of ers ${command.name}`)
    }
    options[option] = values[option]
  }
  if (command.client) {
    const setting = Object.keys(environmentNames).find((key) => values[kebab(key) as keyof typeof values])
    if (setting) {
      throw new UsageError(
        `--${kebab(setting)} is a setting of the service, not an option of ers ${command.name}`,
      )
    }
    await command.run({ operands, options })
    return 0
  }
  const flags = Object.fromEntries(
    Object.keys(environmentNames).map((key) => [key, values[kebab(key) as keyof typeof values]]),
  ) as Partial<Record<keyof Config, string>>
  config = configFromEnvironment(process.env, flags)
  await command.run({ operands, options, config })
  return 0
}

const tooOld = unsupportedNode()
try {
  if (tooOld) {
    process.stderr.write(`ers: ${tooOld}\n`)
    process.exitCode = 1
  } else process.exitCode = await main(process.argv.slice(2))
} catch (error) {
  const failure = describeFailure(error, config?.databaseUrl)
  process.stderr.write(`ers: ${failure.message}\n`)
  if (error instanceof UsageError) process.stderr.write(`\n${usage()}`)
  const level = config?.logLevel ?? process.env.LOG_LEVEL
  if (level === 'debug' || level === 'trace') {
    process.stderr.write(`${(error as Error)?.stack ?? error}\n`)
    const cause = (error as Error | undefined)?.cause
    if (cause) process.stderr.write(`caused by: ${(cause as Error).stack ?? cause}\n`)
  }
  process.exitCode = error instanceof UsageError ? exitUsage : failure.exitCode
}

// `ers`: the command-line tool. Every setting is also a flag (--database-url, --port, …), which
// wins over the environment. Exit status: 0 done, 1 failed, 2 wrong command line or input.
import { commandOptionValues, findCommand, parseCommandLine } from '@event-resource-service/client/cli'
import { type Config, configFromEnvironment, environmentNames } from '../config.ts'
import { unsupportedNode } from '../supported-node.ts'
import { type CommandOption, commandOptions, commands, kebab, usage } from './commands.ts'
import { describeFailure, exitUsage, UsageError } from './errors.ts'

const settingFlags = Object.fromEntries(
  Object.keys(environmentNames).map((key) => [kebab(key), { type: 'string' as const }]),
)

let config: Config | undefined

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, { ...commandOptions, ...settingFlags })
  if (values.help) {
    process.stdout.write(usage())
    return 0
  }
  const { command, operands } = findCommand(commands, positionals, 'ers')
  const known = Object.keys(commandOptions) as CommandOption[]
  const options = commandOptionValues(command, known, values, 'ers')
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

// `ers-client`: the client commands of `ers` (events …, locations get|create|update|delete) on
// their own, for a machine that has only this package. Exit status: 0 done, 1 failed, 2 wrong
// command line or input.
import { clientCommands, clientUsage } from './client-commands.ts'
import {
  type ClientOption,
  clientOptions,
  commandOptionValues,
  findCommand,
  parseCommandLine,
  usageLines,
} from './command-table.ts'
import { describeClientFailure, exitUsage, UsageError } from './errors.ts'

const program = 'ers-client'

export function usage(): string {
  return `Usage: ${program} <command> [options]

Commands:
${usageLines(clientCommands)}

${clientUsage}
Exit status: 0 done; 1 failed (the service could not be reached, or it
refused); 2 the command line or the input is wrong.
`
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, clientOptions)
  if (values.help) {
    process.stdout.write(usage())
    return 0
  }
  const { command, operands } = findCommand(clientCommands, positionals, program)
  const known = Object.keys(clientOptions) as ClientOption[]
  await command.run({ operands, options: commandOptionValues(command, known, values, program) })
  return 0
}

const [major = 0] = process.versions.node.split('.').map(Number)
try {
  if (major < 22) {
    process.stderr.write(`${program}: needs Node.js 22 or later, not ${process.version}\n`)
    process.exitCode = 1
  } else process.exitCode = await main(process.argv.slice(2))
} catch (error) {
  const failure = describeClientFailure(error)
  process.stderr.write(`${program}: ${failure.message}\n`)
  if (error instanceof UsageError) process.stderr.write(`\n${usage()}`)
  if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') {
    process.stderr.write(`${(error as Error)?.stack ?? error}\n`)
    const cause = (error as Error | undefined)?.cause
    if (cause) process.stderr.write(`caused by: ${(cause as Error).stack ?? cause}\n`)
  }
  process.exitCode = error instanceof UsageError ? exitUsage : failure.exitCode
}

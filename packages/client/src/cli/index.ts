// `@event-resource-service/client/cli`: the client commands and what a command-line tool builds
// from them, for the server package's `ers`, which offers the same commands beside its own.
export { clientCommands, clientUsage } from './client-commands.ts'
export {
  type ClientCommand,
  type ClientInvocation,
  type ClientOption,
  type CommandBase,
  clientOptions,
  commandOptionValues,
  findCommand,
  type OptionSpec,
  type OptionValues,
  parseCommandLine,
  usageLines,
} from './command-table.ts'
export {
  CliError,
  describeClientFailure,
  exitFailure,
  exitUsage,
  type Failure,
  firstLine,
  isParseArgsError,
  UsageError,
} from './errors.ts'

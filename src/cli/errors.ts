// How `ers` fails: one plain line on standard error and an exit status, never a stack trace, except
// with LOG_LEVEL=debug (or trace), so that a real bug can still be seen by whoever looks for it.
// The client package's rules (its cli/errors.ts), and the server's own causes: its settings and
// its database.
import {
  describeClientFailure,
  exitFailure,
  exitUsage,
  type Failure,
} from '@event-resource-service/client/cli'
import { ConfigError } from '../config.ts'
import { explainConnectionFailure } from '../store/connection-problems.ts'

export {
  CliError,
  exitFailure,
  exitUsage,
  type Failure,
  firstLine,
  isParseArgsError,
  UsageError,
} from '@event-resource-service/client/cli'

/** What an error means to the person who ran the command. */
export function describeFailure(error: unknown, databaseUrl: string | undefined): Failure {
  if (error instanceof ConfigError) return { message: error.message, exitCode: exitUsage, unexpected: false }
  const database = databaseUrl === undefined ? undefined : explainConnectionFailure(error, databaseUrl)
  if (database) {
    const hint = database.hint ? ` (${database.hint})` : ''
    return { message: `${database.reason}${hint}`, exitCode: exitFailure, unexpected: false }
  }
  return describeClientFailure(error)
}

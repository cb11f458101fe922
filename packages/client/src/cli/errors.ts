// How a command fails: one plain line on standard error and an exit status, never a stack trace
// (unless debugging), shared by `ers-client` and the server's `ers`, which adds its own causes
// (its settings, its database) in front of these.

/** Exit statuses: 2 when the command as given cannot work (fix it and retry), 1 when running failed. */
export const exitUsage = 2
export const exitFailure = 1

/** A failure the user can act on, told in one line. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = exitUsage,
    options?: ErrorOptions,
  ) {
    super(message, options)
  }
}

/** A command line that does not parse: the usage follows the message. */
export class UsageError extends CliError {}

/** node:util parseArgs reports unknown options, missing values and the like with these codes. */
export function isParseArgsError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')
}

export interface Failure {
  /** What to print after `ers: `, one line (a ConfigError of the server lists its problems, one per line). */
  readonly message: string
  readonly exitCode: number
  /** True when the message alone would hide a bug: print the stack when debugging. */
  readonly unexpected: boolean
}

/** What an error of a client command means to the person who ran it. */
export function describeClientFailure(error: unknown): Failure {
  if (error instanceof CliError)
    return { message: error.message, exitCode: error.exitCode, unexpected: false }
  return {
    message: `${firstLine(error)} (run with LOG_LEVEL=debug to see where it happened)`,
    exitCode: exitFailure,
    unexpected: true,
  }
}

export function firstLine(error: unknown): string {
  const text =
    error instanceof AggregateError && !error.message
      ? error.errors.map((e) => firstLine(e)).join('; ')
      : error instanceof Error
        ? error.message
        : String(error)
  return text.split('\n')[0] || 'unknown error'
}

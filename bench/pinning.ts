// Server on one core, load generator on another, so they do not fight for a core and the figures
// mean something. Pinned with taskset where there are at least two cores and taskset exists.
import { spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'

export interface Pinning {
  readonly pinned: boolean
  /** One line for the report. */
  readonly description: string
  /** The command and arguments that start `argv` on the server's core, or on the load's. */
  server(argv: readonly string[]): string[]
  load(argv: readonly string[]): string[]
}

export function choosePinning(wanted: boolean): Pinning {
  const cores = availableParallelism()
  const taskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0
  const why = !wanted
    ? 'not pinned (--no-pin)'
    : cores < 2
      ? `not pinned (${cores} core)`
      : !taskset
        ? 'not pinned (taskset not found)'
        : undefined
  if (why) {
    return {
      pinned: false,
      description: `${why}: server and load generator share ${cores} cores`,
      server: (a) => [...a],
      load: (a) => [...a],
    }
  }
  return {
    pinned: true,
    description: `pinned with taskset: server on core 0, load generator on core 1 (${cores} cores; the database server, if any, is not pinned)`,
    server: (argv) => ['taskset', '-c', '0', ...argv],
    load: (argv) => ['taskset', '-c', '1', ...argv],
  }
}

// Server on one core, load generator on another, so they do not fight for a core and the figures
// mean something. Pinned with taskset where there are at least two cores and taskset exists.
// A PostgreSQL on this machine serves the run's databases from processes of its own, which the
// scheduler put on either core: on the server's they took ~30 % of it (perf, a page of 20), so a
// server's CPU per request depended on where the database's work happened to run. Moved to the
// load's core before each measured run (run.ts), they leave the server's core to the server.
import { spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'

export interface Pinning {
  readonly pinned: boolean
  /** One line for the report. */
  readonly description: string
  /** The command and arguments that start `argv` on the server's core, or on the load's. */
  server(argv: readonly string[]): string[]
  load(argv: readonly string[]): string[]
  /** Moves running processes (the database server's, for one) to the load's core; how many moved. */
  moveToLoadCore(pids: readonly number[]): number
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
      moveToLoadCore: () => 0,
    }
  }
  return {
    pinned: true,
    description: `pinned with taskset: server on core 0; load generator, nginx and a local PostgreSQL's processes for the run's databases on core 1 (${cores} cores)`,
    server: (argv) => ['taskset', '-c', '0', ...argv],
    load: (argv) => ['taskset', '-c', '1', ...argv],
    moveToLoadCore: (pids) =>
      pids.filter(
        (pid) => spawnSync('taskset', ['-p', '-c', '1', String(pid)], { stdio: 'ignore' }).status === 0,
      ).length,
  }
}

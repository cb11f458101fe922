// V8's memory-saver mode (`--memory-saver-mode`, V8 13 and later: Node 24). Without it V8 lets the
// old generation grow by at least ~16 MB of garbage past what survived its last full collection
// before collecting again; with it, by little, and it compacts more. Writes promote a little of
// every request into the old generation, so that headroom fills and stays resident.
//
// Measured with the bench (docs/performance.md, "A ninth machine"): on SQLite, whose process also
// holds a reader thread and SQLite's caches, the peaks under writes fell from 146–151 to 128–135
// MiB, for 3–30 % more CPU per page and per write and none per single read; on PostgreSQL,
// already at 124–128 MiB, it cost a signed PUT 24 % more CPU, below its target. So `auto` turns
// it on for an SQLite file only.
//
// It is set at start-up rather than on the command line: a Node 22 (V8 12) that does not know the
// flag refuses to start with it there. V8 reads it at every collection, so setting it before the
// store opens covers the main thread and every reader thread (flags are per process).
import { setFlagsFromString } from 'node:v8'

export const memorySaverModes = ['auto', 'on', 'off'] as const
export type MemorySaverMode = (typeof memorySaverModes)[number]

/** The first V8 that knows `--memory-saver-mode`. */
const firstV8Major = 13

/** Whether the mode asks for memory-saver with this store. */
export const memorySaverWanted = (mode: MemorySaverMode, databaseUrl: string): boolean =>
  mode === 'on' || (mode === 'auto' && databaseUrl.startsWith('sqlite:'))

/**
 * Turns memory-saver on when wanted and this V8 knows it; says what it did, for the start-up log.
 * (`setFlagsFromString` would print an error to standard error for a flag V8 does not know.)
 */
export function applyMemorySaver(
  mode: MemorySaverMode,
  databaseUrl: string,
  v8Version: string = process.versions.v8,
  set: (flags: string) => void = setFlagsFromString,
): string {
  if (!memorySaverWanted(mode, databaseUrl)) return `V8 memory-saver off (MEMORY_SAVER=${mode})`
  if (Number(v8Version.split('.')[0]) < firstV8Major) {
    return `V8 memory-saver not available on V8 ${v8Version} (it needs Node 24); MEMORY_SAVER=${mode} has no effect`
  }
  set('--memory-saver-mode')
  return `V8 memory-saver on (MEMORY_SAVER=${mode})`
}

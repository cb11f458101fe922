// V8's memory-saver mode (`--memory-saver-mode`, V8 13 and later: Node 24). Without it V8 lets the
// old generation grow by at least ~16 MB of garbage past what survived its last full collection
// before collecting again; with it, by little, and it compacts more. Writes promote a little of
// every request into the old generation, so that headroom fills and stays resident.
//
// It costs CPU, and not only where it saves memory (docs/performance.md, "A ninth machine" and "A
// tenth machine"): on one machine, 3–30 % more per page and per write and none per single read;
// on another, 4–35 % more per single read on SQLite (a 304: 55 → 74 µs), where those reads'
// process stayed at 129–133 MiB without it. So `auto` governs it by the resident set, as Chromium
// does for its renderers: on once the process holds `onAboveBytes` (136 MiB), off again once it is
// back under `offBelowBytes` (124 MiB), looked at twice a second. A process under its ceiling
// pays nothing; one that writes its way up gets the old generation collected soon, and gives the
// CPU back when it has come down. The gap between the two keeps it from flapping.
//
// It is set through `setFlagsFromString`, not on the command line: a Node 22 (V8 12) that does not
// know the flag refuses to start with it there. V8 reads it at every collection, and flags are the
// process's, so it reaches the main thread and every reader thread alike.
import { setFlagsFromString } from 'node:v8'

export const memorySaverModes = ['auto', 'on', 'off'] as const
export type MemorySaverMode = (typeof memorySaverModes)[number]

/** The first V8 that knows `--memory-saver-mode`. */
const firstV8Major = 13

const mib = 2 ** 20
export const memorySaverThresholds = { onAboveBytes: 136 * mib, offBelowBytes: 124 * mib } as const
export const memorySaverCheckMs = 500

export interface MemorySaverDependencies {
  readonly v8Version?: string
  readonly set?: (flags: string) => void
  /** The process's resident set in bytes. */
  readonly residentBytes?: () => number
  /** Told when `auto` turns it on or off, with the resident set that made it. */
  readonly onChange?: (message: string) => void
}

export interface MemorySaver {
  /** What it does, for the start-up log. */
  readonly description: string
  /** One look at the resident set (`auto` only; a timer calls it every memorySaverCheckMs). */
  check(): void
  stop(): void
}

/** Sets memory-saver as `mode` says, and for `auto` keeps setting it by the resident set. */
export function startMemorySaver(mode: MemorySaverMode, deps: MemorySaverDependencies = {}): MemorySaver {
  const { v8Version = process.versions.v8, set = setFlagsFromString } = deps
  const idle = (description: string): MemorySaver => ({ description, check() {}, stop() {} })
  if (mode === 'off') return idle('V8 memory-saver off (MEMORY_SAVER=off)')
  // `setFlagsFromString` would print an error to standard error for a flag V8 does not know.
  if (Number(v8Version.split('.')[0]) < firstV8Major) {
    return idle(
      `V8 memory-saver not available on V8 ${v8Version} (it needs Node 24); MEMORY_SAVER=${mode} has no effect`,
    )
  }
  if (mode === 'on') {
    set('--memory-saver-mode')
    return idle('V8 memory-saver on (MEMORY_SAVER=on)')
  }
  const { residentBytes = () => process.memoryUsage.rss(), onChange = () => {} } = deps
  const { onAboveBytes, offBelowBytes } = memorySaverThresholds
  let saving = false
  const check = () => {
    const resident = residentBytes()
    if (saving ? resident >= offBelowBytes : resident < onAboveBytes) return
    saving = !saving
    set(saving ? '--memory-saver-mode' : '--no-memory-saver-mode')
    onChange(`V8 memory-saver ${saving ? 'on' : 'off'}: resident ${Math.round(resident / mib)} MiB`)
  }
  const timer = setInterval(check, memorySaverCheckMs).unref()
  return {
    description: `V8 memory-saver on above ${onAboveBytes / mib} MiB resident, off again below ${offBelowBytes / mib} MiB (MEMORY_SAVER=auto)`,
    check,
    stop: () => clearInterval(timer),
  }
}

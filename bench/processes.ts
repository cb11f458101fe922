// Child processes of the harness: the servers under test and the load driver.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { openSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import type { LoadFigures, LoadRun } from './load-driver.ts'

export const repoRoot = new URL('..', import.meta.url).pathname.replace(/\/$/, '')

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

export interface RunningServer {
  readonly name: string
  readonly baseUrl: string
  readonly pid: number
  /** Makes VmHWM start again from the current RSS; false where the kernel refuses. */
  resetPeak(): boolean
  /** The highest resident set size since the start or the last reset, in bytes. */
  peakRss(): number | undefined
  /** CPU time the server has used (user + system, /proc/<pid>/stat), in µs; undefined off Linux. */
  cpuMicros(): number | undefined
  stop(): Promise<void>
}

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux almost everywhere). */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100
  } catch {
    return 100
  }
})()

/**
 * utime + stime of a process in µs. Read from outside, it does not depend on the load generator,
 * and it counts every thread of the server (its libuv pool too). The fields after the command
 * name, which may hold spaces, are read from its closing parenthesis on.
 */
export function processCpuMicros(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // Fields 14 and 15 of proc(5); the slice starts at field 3.
    const ticks = Number(fields[11]) + Number(fields[12])
    return Number.isFinite(ticks) ? (ticks * 1_000_000) / ticksPerSecond : undefined
  } catch {
    return undefined
  }
}

/** Runs a command line to completion; its standard output, or an error with its standard error. */
export async function runCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<string> {
  const [command = '', ...args] = argv
  const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  child.stderr.on('data', (d) => {
    err += d
  })
  child.stdin.end(input ?? '')
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', resolve)
  })
  if (code !== 0) throw new Error(`${argv.join(' ')} exited with ${code}: ${err.trim()}`)
  return out
}

/** Starts a server and waits until `readyPath` answers 200. */
export async function startServer(
  name: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  port: number,
  readyPath: string,
): Promise<RunningServer> {
  const [command = '', ...args] = argv
  // Standard output (the request log, as production writes it) goes to /dev/null: its cost stays,
  // without filling a disk. Standard error is kept to explain a failed start.
  // BENCH_SERVER_LOG=FILE keeps it instead, to find out why a server would not start.
  const stdout = process.env.BENCH_SERVER_LOG ? openSync(process.env.BENCH_SERVER_LOG, 'a') : 'ignore'
  const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', stdout, 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (d) => {
    stderr = (stderr + d).slice(-4000)
  })
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.signalCode ?? `status ${child.exitCode}`
      throw new Error(
        `${name} stopped (${how}) before it was ready: ${stderr.trim() || 'see BENCH_SERVER_LOG'}`,
      )
    }
    try {
      const res = await fetch(`${baseUrl}${readyPath}`)
      await res.arrayBuffer()
      if (res.status === 200) break
    } catch {}
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${name} did not become ready in 120 s: ${stderr.trim()}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  const pid = child.pid as number
  return {
    name,
    baseUrl,
    pid,
    resetPeak() {
      try {
        // Linux ≥ 4.0: writing 5 to clear_refs resets the peak RSS (VmHWM) to the current RSS.
        writeFileSync(`/proc/${pid}/clear_refs`, '5')
        return true
      } catch {
        return false
      }
    },
    peakRss() {
      try {
        const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
        return kib === undefined ? undefined : Number(kib) * 1024
      } catch {
        return undefined
      }
    },
    cpuMicros: () => processCpuMicros(pid),
    stop: () => stopChild(child),
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

/** The load generator process: one per harness run, told what to run over IPC. */
export interface LoadDriver {
  run(run: LoadRun): Promise<LoadFigures>
  stop(): Promise<void>
}

export function startLoadDriver(wrap: (argv: readonly string[]) => string[]): LoadDriver {
  const [command = '', ...args] = wrap([
    process.execPath,
    '--import',
    'tsx',
    `${repoRoot}/bench/load-driver.ts`,
  ])
  // taskset execs node, which finds the IPC channel through the descriptor and variable it inherits.
  const child = spawn(command, args, { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  let next = 0
  const waiting = new Map<number, { resolve: (f: LoadFigures) => void; reject: (e: Error) => void }>()
  child.on('message', (message: { id: number; figures?: LoadFigures; error?: string }) => {
    const entry = waiting.get(message.id)
    waiting.delete(message.id)
    if (message.figures) entry?.resolve(message.figures)
    else entry?.reject(new Error(`load driver: ${message.error}`))
  })
  child.on('exit', (code) => {
    for (const entry of waiting.values()) entry.reject(new Error(`load driver exited with ${code}`))
    waiting.clear()
  })
  return {
    run(run) {
      const id = next++
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject })
        child.send({ id, run })
      })
    },
    async stop() {
      if (child.connected) child.disconnect()
      await stopChild(child)
    },
  }
}

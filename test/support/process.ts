// Runs the real server and the real CLI as child processes, as a user would.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** Collects, as text, everything the child prints on standard output and standard error. */
function captureOutput(child: { stdout: Readable; stderr: Readable }): { stdout: string; stderr: string } {
  const output = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk
  })
  return output
}

export interface ServerProcess {
  readonly child: ChildProcess
  readonly baseUrl: string
  /** Everything printed so far on standard output. */
  output(): string
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Starts `src/main.ts` on a free port and waits until it says where it listens. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = captureOutput(child)
  const exited = once(child, 'exit').then(([code, signal]) => ({ code, signal }))
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output.stdout)
      if (m?.[1]) {
        child.stdout.off('data', look)
        resolve(m[1])
      }
    }
    child.stdout.on('data', look)
    void exited.then(({ code }) =>
      reject(new Error(`server exited (${code}) before listening:\n${output.stdout}${output.stderr}`)),
    )
  })
  return { child, baseUrl, output: () => output.stdout, exited }
}

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `bin/ers.js` with the given arguments, environment and standard input. */
export async function runCli(args: string[], env: Record<string, string>, input = ''): Promise<CliResult> {
  const child = spawn(process.execPath, ['bin/ers.js', ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const output = captureOutput(child)
  child.stdin.end(input)
  const [code] = await once(child, 'exit')
  return { code: code as number | null, ...output }
}

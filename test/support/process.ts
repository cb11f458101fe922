// Runs the real server and the real CLI as child processes, as a user would.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import type { StoreTarget } from './stores.ts'

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
  /** The pid of the server itself (under `npm start`, the child is npm and this is its child). */
  readonly serverPid: number
  /** Everything printed so far on standard output. */
  output(): string
  /** Everything printed so far on standard error. */
  errors(): string
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** How the server is started: its TypeScript through tsx (fast to iterate), or as a user does. */
const launchers = {
  source: [process.execPath, '--import', 'tsx', 'src/main.ts'],
  /** Exactly what a user types; runs the compiled build (`npm test` builds it first). */
  'npm start': ['npm', 'start', '--silent'],
} as const

export interface SpawnedServer {
  readonly child: ChildProcess
  output(): string
  errors(): string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Starts the server process on a free port, without waiting for anything. */
export function spawnServer(
  env: Record<string, string>,
  how: keyof typeof launchers = 'source',
): SpawnedServer {
  const [command, ...args] = launchers[how]
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = captureOutput(child)
  const exited = once(child, 'exit').then(([code, signal]) => ({ code, signal }))
  return { child, output: () => output.stdout, errors: () => output.stderr, exited }
}

/** Waits until a spawned server says where it listens. */
export async function listening(spawned: SpawnedServer): Promise<ServerProcess> {
  const m = await new Promise<RegExpExecArray>((resolve, reject) => {
    const look = () => {
      const found = /"pid":(\d+)[^\n]*Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(spawned.output())
      if (found) {
        spawned.child.stdout?.off('data', look)
        resolve(found)
      }
    }
    spawned.child.stdout?.on('data', look)
    look()
    void spawned.exited.then(({ code }) =>
      reject(new Error(`server exited (${code}) before listening:\n${spawned.output()}${spawned.errors()}`)),
    )
  })
  return { ...spawned, baseUrl: m[2] as string, serverPid: Number(m[1]) }
}

/** Starts the server on a free port and waits until it says where it listens. */
export function startServerProcess(
  env: Record<string, string>,
  how: keyof typeof launchers = 'source',
): Promise<ServerProcess> {
  return listening(spawnServer(env, how))
}

/** Runs the server until it exits by itself (a start-up that fails), with everything it printed. */
export async function runServerToExit(env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = captureOutput(child)
  const [code] = await once(child, 'exit')
  return { code: code as number | null, ...output }
}

/** True while a process with that pid exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
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

/**
 * Runs a script of the repository with tsx (`bench/run.ts`…), writing its result files to a new
 * directory: asserts it exited 0, and hands the directory's files and the output to `read`
 * before the directory is removed.
 */
export async function runScriptWithResults<T>(
  script: string,
  args: string[],
  read: (dir: string, files: string[], output: string) => T,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'ers-script-'))
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', script, '--results-dir', dir, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d) => {
      output += d
    })
    child.stderr.on('data', (d) => {
      output += d
    })
    const code = await new Promise((resolve) => child.once('close', resolve))
    assert.equal(code, 0, output)
    return read(dir, readdirSync(dir).sort(), output)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Waits until `done` holds, checking every 10 ms. */
export const poll = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10))
}

/**
 * Sends a GET /events whose JSON body arrives in two parts: the server holds it as in flight until
 * `finish` sends the rest (or forever, if it is never called). Resolves once the server has it:
 * the request asks for `100 Continue` (RFC 9110 §10.1.1), which Node writes as it hands the
 * request to the service, so no log line (whose level and form may change) is waited for.
 */
export async function requestInFlight(server: ServerProcess) {
  const { port, hostname } = new URL(server.baseUrl)
  const body = JSON.stringify({ page: 1, per_page: 5 })
  const socket = connect(Number(port), hostname)
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  let answer = ''
  let continued = false
  const interim = 'HTTP/1.1 100 Continue\r\n\r\n'
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    answer += chunk
    // The interim response is not part of the answer the caller reads.
    if (!continued && answer.startsWith(interim)) {
      continued = true
      answer = answer.slice(interim.length)
    }
  })
  let ended = false
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      ended = true
      resolve()
    }),
  )
  socket.on('error', () => {})
  socket.write(
    `GET /events HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n${body.slice(0, 5)}`,
  )
  await poll(() => continued || ended)
  if (!continued) throw new Error(`the server closed the connection instead of taking the request: ${answer}`)
  return {
    /** Sends the rest of the body; resolves with everything the server wrote once it closes. */
    async finish() {
      socket.write(body.slice(5))
      // The server, not the test, closes the connection once the answer is out: an idle keep-alive
      // connection must not hold up the exit.
      await closed
      return answer
    },
    /** Resolves with what arrived once the server closes the connection. */
    closed: closed.then(() => answer),
  }
}

/** True when a new connection to the server is refused. */
export async function connectionRefused(baseUrl: string): Promise<boolean> {
  const { port, hostname } = new URL(baseUrl)
  return new Promise((resolve) => {
    const probe = connect(Number(port), hostname)
    probe.once('connect', () => {
      probe.destroy()
      resolve(false)
    })
    probe.once('error', () => resolve(true))
  })
}

/**
 * Two server processes on one new database of `target`, filled with the samples, with the editor
 * `admin` (password `admin-password-1`) and no request rate limits, for tests that write far more
 * a minute than the default budget allows. One after the other: the first migrates and seeds,
 * the second finds it done.
 */
export async function startTwoInstances(target: StoreTarget) {
  const database = await target.create()
  const env = {
    DATABASE_URL: database.databaseUrl,
    SEED: 'true',
    ADMIN_PASSWORD: 'admin-password-1',
    RATE_LIMIT_WRITES: '0',
    RATE_LIMIT_READS: '0',
    // A pooler's settings (the PgBouncer target of test/support/stores.ts).
    ...(database.settings?.databasePooler && { DATABASE_POOLER: database.settings.databasePooler }),
    ...(database.settings?.databaseListenUrl && { DATABASE_LISTEN_URL: database.settings.databaseListenUrl }),
  }
  const instances = [await startServerProcess(env)]
  instances.push(await startServerProcess(env))
  return {
    databaseUrl: database.databaseUrl,
    instances,
    /** Instance `n` modulo two, to spread requests over both. */
    on: (n: number) => instances[n % 2] as ServerProcess,
    async stop() {
      for (const instance of instances) instance.child.kill('SIGTERM')
      await Promise.all(instances.map((i) => i.exited))
      await database.drop()
    },
  }
}

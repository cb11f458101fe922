// The documentation runs as written: every runnable shell example of the README and then of each
// page of docs/ (in the order the README's contents list them), in one bash session, against one
// fresh service on SQLite, as a reader following them from top to bottom would. What an example
// says it prints (markdown-examples.ts) is checked against what it printed.
import assert from 'node:assert/strict'
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { documentSteps, missingLine } from './markdown-examples.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const stepTimeoutMs = 30_000

/** README.md, then the pages of docs/ in the order its contents list links them. */
function documents(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const pages = [...readme.matchAll(/\]\((docs\/[a-z-]+\.md)\)/g)].map((m) => m[1] as string)
  return ['README.md', ...new Set(pages)]
}

/** One bash for every step, so that what a step exports is there for the next ones. */
class Shell {
  readonly #bash: ChildProcessWithoutNullStreams
  #output = ''
  #step = 0
  /** Set when a step never finished: the session is then in an unknown state. */
  #stuck: string | undefined

  constructor(env: Record<string, string>) {
    this.#bash = spawn('bash', ['--noprofile', '--norc'], { cwd: root, env, stdio: 'pipe' })
    this.#bash.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.#output += chunk
    })
    this.#bash.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#output += chunk
    })
  }

  /** Runs one command and gives back what it printed (both streams) and its exit status. */
  async run(command: string, where: string): Promise<{ output: string; status: number }> {
    if (this.#stuck) throw new Error(`not run: the shell has been stuck since ${this.#stuck}`)
    const marker = `__ers_doc_step_${++this.#step}__`
    this.#output = ''
    this.#bash.stdin.write(`{\n${command}\n} </dev/null 2>&1; printf '\\n${marker} %d\\n' $?\n`)
    const deadline = Date.now() + stepTimeoutMs
    const done = new RegExp(`\\n${marker} (\\d+)\\n`)
    for (;;) {
      const found = done.exec(this.#output)
      if (found) return { output: this.#output.slice(0, found.index), status: Number(found[1]) }
      if (Date.now() > deadline) {
        this.#stuck = where
        throw new Error(`still running after ${stepTimeoutMs} ms:\n${this.#output}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  close(): void {
    this.#bash.stdin.end()
    this.#bash.kill()
  }
}

describe('the documentation, run as written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ers-docs-'))
  const password = randomBytes(12).toString('base64url')
  let server: ServerProcess
  let shell: Shell
  let baseUrl = ''

  before(async () => {
    server = await startServerProcess(
      {
        DATABASE_URL: `sqlite:${join(dir, 'events.db')}`,
        ADMIN_PASSWORD: password,
      },
      'npm start',
    )
    baseUrl = server.baseUrl
    shell = new Shell({
      ...(process.env as Record<string, string>),
      PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}`,
      DATABASE_URL: `sqlite:${join(dir, 'events.db')}`,
      // What the README's reader copied from the first start's output.
      ERS_PASSWORD: password,
      ERS_URL: baseUrl,
      LOG_LEVEL: 'warn',
    })
  })

  after(async () => {
    shell?.close()
    server?.child.kill('SIGTERM')
    await server?.exited
    rmSync(dir, { recursive: true, force: true })
  })

  for (const file of documents()) {
    describe(file, () => {
      for (const step of documentSteps(file, readFileSync(join(root, file), 'utf8'))) {
        const firstLine = step.command.split('\n')[0] ?? ''
        it(`${step.where}: ${firstLine.slice(0, 90)}`, async () => {
          const command = step.command.replaceAll('http://localhost:8080', baseUrl)
          const { output, status } = await shell.run(command, step.where)
          assert.equal(status, 0, `${step.where} exited with ${status}:\n${output}`)
          const missing = missingLine(output, step.expected)
          assert.equal(missing, undefined, `${step.where} did not print\n  ${missing}\nbut:\n${output}`)
        })
      }
    })
  }
})

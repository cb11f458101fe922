// wrk as the load generator, where it is installed (Debian: `apt-get install wrk`): written in C, it
// spends a small, steady share of its core per request, where autocannon's JavaScript has pauses of
// its own that showed up as ±25% between rounds of the same build.
//
// wrk cannot run the harness's JavaScript per request, so the requests are drawn ahead: a pool of
// requests (bench/scenarios.ts, the same draws as autocannon's) is written to a file, and a Lua
// script sends one picked at random from it for every request. The pool is large enough that the
// data read stays spread as with fresh draws (50,000 ids of a million touch most of the table's
// pages). Signed requests carry a fresh nonce each, and a replay is refused: they are drawn and
// signed ahead too, enough for the run at a rate no write reaches here, and sent in order, each
// once (signatures stay valid for 300 s, far longer than a run). Should a run outrun its pool, it
// stops and says so rather than send a replay. The script also counts status codes, and a counted
// run (--smoke) ends once it has its answers.
import { spawn } from 'node:child_process'
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import type { LoadFigures, LoadRun } from './load-driver.ts'
import { type DrawnRequest, drawRequest } from './scenarios.ts'

/** Requests drawn ahead for one run, sent in random order. */
const poolSize = 50_000
/** Signed requests drawn ahead per second of a run, sent in order: above any write rate seen here. */
const signedPerSecond = 6_000

/** The path of `wrk` on PATH, if any. */
export function findWrk(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, 'wrk')
    try {
      accessSync(path, constants.X_OK)
      return path
    } catch {}
  }
  return undefined
}

/** A request as the bytes wrk sends. */
function rawRequest(host: string, request: DrawnRequest): string {
  const body = request.body ?? ''
  const fields = Object.entries(request.headers).map(([name, value]) => `${name}: ${value}\r\n`)
  const length = request.body === undefined ? '' : `content-length: ${Buffer.byteLength(body)}\r\n`
  return `${request.method} ${request.path} HTTP/1.1\r\nhost: ${host}\r\n${fields.join('')}${length}\r\n${body}`
}

// Requests are separated by NUL, which none contains. `response` counts each status; a counted
// run (limit > 0) stops once that many answers came. `done` prints the counts as one JSON line.
const script = `
local pool = {}
counts = {} -- a global: done() reads each thread's with thread:get
local answered = 0
local limit = 0
local threads = {}

function setup(thread) table.insert(threads, thread) end

function init(args)
  local file = assert(io.open(args[1], "rb"))
  local data = file:read("*a")
  file:close()
  local start = 1
  while true do
    local stop = string.find(data, "\\0", start, true)
    if not stop then break end
    pool[#pool + 1] = string.sub(data, start, stop - 1)
    start = stop + 1
  end
  limit = tonumber(args[2]) or 0
  math.randomseed(tonumber(args[3]) or os.time())
  in_order = args[4] == "in-order"
end

local next_in_order = 0
function request()
  if not in_order then return pool[math.random(#pool)] end
  next_in_order = next_in_order + 1
  if next_in_order > #pool then
    wrk.thread:stop()
    io.write("pool exhausted\\n")
    io.flush()
    next_in_order = 1
  end
  return pool[next_in_order]
end

function response(status)
  counts[status] = (counts[status] or 0) + 1
  answered = answered + 1
  if limit > 0 and answered == limit then
    -- Stopping the thread does not end wrk's own wait of --duration: the driver sends SIGINT
    -- on this line, and wrk reports at once.
    wrk.thread:stop()
    io.write("enough answers\\n")
    io.flush()
  end
end

function done()
  local total = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("counts")) do total[status] = (total[status] or 0) + n end
  end
  local parts = {}
  for status, n in pairs(total) do parts[#parts + 1] = string.format('"%d":%d', status, n) end
  io.write("status codes: {" .. table.concat(parts, ",") .. "}\\n")
end
`

/** Milliseconds from wrk's `575.00us`, `1.23ms` or `2.01s`. */
function milliseconds(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text)
  if (!match) return Number.NaN
  const value = Number(match[1])
  return match[2] === 'us'
    ? value / 1000
    : match[2] === 'ms'
      ? value
      : match[2] === 's'
        ? value * 1000
        : value * 60_000
}

/** The figures of wrk's report (`--latency`) and of the script's status line. */
export function parseWrkOutput(output: string): Omit<LoadFigures, 'driver'> {
  const done = /(\d+) requests in ([\d.]+)(us|ms|s|m)/.exec(output)
  if (!done) throw new Error(`wrk reported no requests:\n${output}`)
  const requests = Number(done[1])
  const seconds = milliseconds(`${done[2]}${done[3]}`) / 1000
  const percentile = (p: number) => {
    const line = new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(output)
    return line ? milliseconds(line[1] as string) : Number.NaN
  }
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output)
  const [connect, read, write, timeouts] = socket ? socket.slice(1).map(Number) : [0, 0, 0, 0]
  // wrk runs on with its default request when the script fails to load: no line, no figures.
  const codes = /^status codes: (\{.*\})$/m.exec(output)
  if (!codes) throw new Error(`wrk ran without its script:\n${output}`)
  const statusCodes = JSON.parse(codes[1] as string) as Record<string, number>
  const non2xx = Object.entries(statusCodes).reduce(
    // A 304 is the answer a revalidation asks for (scenario revalidate-event).
    (sum, [status, count]) => (status.startsWith('2') || status === '304' ? sum : sum + count),
    0,
  )
  return {
    requests,
    seconds,
    rps: seconds > 0 ? requests / seconds : 0,
    p50Ms: percentile(50),
    p99Ms: percentile(99),
    non2xx,
    socketErrors: (connect ?? 0) + (read ?? 0) + (write ?? 0) + (timeouts ?? 0),
    timeouts: timeouts ?? 0,
    statusCodes,
  }
}

/** A counted run is given this long at most; it normally stops itself far sooner. */
const countedRunCapSeconds = 120

/**
 * Runs wrk. With `sign`, each request is signed ahead and sent once, in order (see the top of
 * this file); otherwise requests are picked at random from a pool.
 */
export async function runWrk(
  wrk: string,
  { plan, connections, length }: LoadRun,
  sign?: (request: DrawnRequest) => DrawnRequest,
): Promise<LoadFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'ers-bench-wrk-'))
  try {
    const host = new URL(plan.baseUrl).host
    const count = !sign
      ? poolSize
      : 'seconds' in length
        ? length.seconds * signedPerSecond
        : length.requests + 2 * connections
    const requests = Array.from({ length: count }, () =>
      rawRequest(host, drawRequest(plan, Math.random, sign)),
    )
    const poolFile = join(dir, 'requests')
    writeFileSync(poolFile, `${requests.join('\0')}\0`)
    const scriptFile = join(dir, 'pool.lua')
    writeFileSync(scriptFile, script)
    const seconds = 'seconds' in length ? length.seconds : countedRunCapSeconds
    const limit = 'requests' in length ? length.requests : 0
    const args = [
      '--threads',
      '1',
      '--connections',
      String(connections),
      '--duration',
      `${seconds}s`,
      '--timeout',
      '10s',
      '--latency',
      '--script',
      scriptFile,
      plan.baseUrl,
      '--',
      poolFile,
      String(limit),
      String(Math.floor(Math.random() * 2 ** 31)),
      sign ? 'in-order' : 'random',
    ]
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(wrk, args, { stdio: ['ignore', 'pipe', 'pipe'] })
      let text = ''
      child.stdout.on('data', (chunk) => {
        text += chunk
        if ((limit > 0 && text.includes('enough answers\n')) || text.includes('pool exhausted\n'))
          child.kill('SIGINT')
      })
      child.stderr.on('data', (chunk) => {
        text += chunk
      })
      child.once('error', reject)
      child.once('close', (code) =>
        code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}:\n${text}`)),
      )
    })
    if (/^pool exhausted$/m.test(output))
      throw new Error(`wrk sent all ${count} signed requests drawn for the run before it ended`)
    return { ...parseWrkOutput(output), driver: 'wrk' }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

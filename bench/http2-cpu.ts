// Server CPU per request of a page of 20 over HTTPS: 1,000 requests on one HTTP/2 connection
// against 1,000 on HTTP/1.1 keep-alive connections (10 at a time each), read from /proc/<pid>/stat
// (user + system), so the client's own cost does not count. Runs `node dist/main.js` (npm run build
// first) on a seeded SQLite file with a certificate of its own:
//   node --import tsx bench/http2-cpu.ts [--requests 1000] [--rounds 3]
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect as h2connect } from 'node:http2'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Agent, request } from 'undici'

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '3' } },
})
const requests = Number(values.requests)
const rounds = Number(values.rounds)
const concurrency = 10
const path = '/events?page=1&per_page=20'
const accept = 'application/vnd.service.events+json'

const dir = mkdtempSync(join(tmpdir(), 'ers-h2-cpu-'))
const cert = join(dir, 'cert.pem')
const key = join(dir, 'key.pem')
execFileSync(
  'openssl',
  ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'].concat([
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost',
    '-keyout',
    key,
    '-out',
    cert,
  ]),
  { stdio: 'ignore' },
)
const ca = readFileSync(cert, 'utf8')

const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const address = probe.address()
    probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
  })
})
const server = spawn('node', ['dist/main.js'], {
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${join(dir, 'events.db')}`,
    SEED: 'true',
    ADMIN_PASSWORD: 'admin-password-1',
    TLS_CERT: cert,
    TLS_KEY: key,
    LOG_LEVEL: 'info',
    RATE_LIMIT_READS: '0',
    MAX_CONNECTIONS_PER_ADDRESS: '0',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
})
const base = `https://localhost:${port}`

/** CPU time (user + system) of the server so far, in microseconds. */
function serverCpu(): number {
  const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100
}

async function overHttp1(): Promise<void> {
  const agent = new Agent({ connect: { ca }, connections: concurrency, pipelining: 1 })
  let left = requests
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) {
        const res = await request(`${base}${path}`, { dispatcher: agent, headers: { accept } })
        await res.body.arrayBuffer()
        if (res.statusCode !== 200) throw new Error(`HTTP/1.1: ${res.statusCode}`)
      }
    }),
  )
  await agent.close()
}

async function overHttp2(): Promise<void> {
  const session = h2connect(base, { ca })
  let left = requests
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const stream = session.request({ ':path': path, accept })
      stream.on('response', (fields) => {
        if (fields[':status'] !== 200) reject(new Error(`HTTP/2: ${fields[':status']}`))
      })
      stream.on('data', () => {})
      stream.on('end', resolve)
      stream.on('error', reject)
    })
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await one()
    }),
  )
  await new Promise<void>((resolve) => session.close(() => resolve()))
}

async function measure(run: () => Promise<void>): Promise<number> {
  const before = serverCpu()
  await run()
  return (serverCpu() - before) / requests
}

try {
  for (let tries = 0; ; tries++) {
    try {
      await overHttp1()
      break
    } catch (error) {
      if (tries > 100) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  // Warm-up of both paths.
  await overHttp1()
  await overHttp2()
  const h1: number[] = []
  const h2: number[] = []
  for (let round = 0; round < rounds; round++) {
    h1.push(await measure(overHttp1))
    h2.push(await measure(overHttp2))
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0
  console.log(`server CPU per request, page of 20, ${requests} requests, ${concurrency} at a time:`)
  console.log(
    `  HTTP/1.1 keep-alive over TLS: ${h1.map((v) => v.toFixed(0)).join(', ')} µs (median ${median(h1).toFixed(0)})`,
  )
  console.log(
    `  HTTP/2, one connection:       ${h2.map((v) => v.toFixed(0)).join(', ')} µs (median ${median(h2).toFixed(0)})`,
  )
  console.log(`  ratio HTTP/2 ÷ HTTP/1.1: ${(median(h2) / median(h1)).toFixed(2)}`)
} finally {
  server.kill('SIGTERM')
  await once(server, 'exit')
  rmSync(dir, { recursive: true, force: true })
}

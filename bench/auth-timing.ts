// Does the time of a refused Basic credential tell whether the user exists? Measures, against a
// running server, wrong passwords for a user who exists beside the same for names that do not:
// bursts of identical concurrent writes, then one at a time. Also what valid (cached)
// credentials add to a read. Prints the figures; asserts nothing (timing never belongs in npm test).
//
//   node --import tsx bench/auth-timing.ts [base URL] [existing user] [password]
//   (defaults: http://127.0.0.1:3000 admin; the password only for the cached-read figure)
//
// Start the server with AUTH_FAILURES_PER_MINUTE high enough (e.g. 1000000): the failed-attempt
// limit would otherwise answer 429 after a few requests, and this measures the hashing.
import { performance } from 'node:perf_hooks'
import { Agent, request } from 'undici'

const [baseUrl = 'http://127.0.0.1:3000', knownUser = 'admin', password] = process.argv.slice(2)
const agent = new Agent({ connections: 64 })
const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`

/** One request; its duration in ms (the status must be `expected`). */
async function timed(
  method: 'GET' | 'POST',
  path: string,
  authorization: string | undefined,
  expected: number,
): Promise<number> {
  const started = performance.now()
  const res = await request(`${baseUrl}${path}`, {
    method,
    dispatcher: agent,
    headers: {
      ...(authorization !== undefined && { authorization }),
      ...(method === 'POST' && { 'content-type': 'application/json' }),
    },
    ...(method === 'POST' && { body: '{}' }),
  })
  await res.body.dump()
  const ms = performance.now() - started
  if (res.statusCode !== expected)
    throw new Error(`${method} ${path}: ${res.statusCode}, expected ${expected}`)
  return ms
}

// A write: refused (401) before its body is looked at, and checked on every version of the service.
const refused = (authorization: string) => timed('POST', '/events', authorization, 401)

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}
const ms = (value: number) => `${value.toFixed(1)} ms`
const summary = (values: number[]) =>
  `median ${ms(quantile(values, 0.5))}, p90 ${ms(quantile(values, 0.9))}, max ${ms(Math.max(...values))}`

/** `rounds` bursts of `size` identical concurrent requests; the slowest request of each burst. */
async function bursts(name: (round: number) => string, rounds: number, size: number): Promise<number[]> {
  const slowest: number[] = []
  for (let round = 0; round < rounds; round++) {
    const authorization = basic(name(round), `wrong-password-${round}`)
    const times = await Promise.all(Array.from({ length: size }, () => refused(authorization)))
    slowest.push(Math.max(...times))
  }
  return slowest
}

/** `count` requests one at a time, alternating the two cases so drift affects both alike. */
async function sequential(count: number): Promise<{ known: number[]; unknown: number[] }> {
  const known: number[] = []
  const unknown: number[] = []
  for (let i = 0; i < count; i++) {
    known.push(await refused(basic(knownUser, `wrong-${i}`)))
    unknown.push(await refused(basic(`nobody-${i}-${process.pid}`, `wrong-${i}`)))
  }
  return { known, unknown }
}

// Warm up connections and the server's dummy hash.
await timed('GET', '/health/live', undefined, 200)
await refused(basic(`warm-up-${process.pid}`, 'x'))

const rounds = 10
const size = 12
const knownBursts = await bursts(() => knownUser, rounds, size)
const unknownBursts = await bursts((round) => `nobody-${round}-${process.pid}`, rounds, size)
console.log(`${size} concurrent identical wrong-password requests, slowest of each of ${rounds} bursts:`)
console.log(`  existing user "${knownUser}": ${summary(knownBursts)}`)
console.log(`  unknown user:          ${summary(unknownBursts)}`)

const one = await sequential(30)
console.log('one request at a time (30 each, alternating):')
console.log(`  existing user "${knownUser}": ${summary(one.known)}`)
console.log(`  unknown user:          ${summary(one.unknown)}`)

if (password !== undefined) {
  // The first request hashes and fills the cache; the rest are cache hits.
  await timed('GET', '/health/live', basic(knownUser, password), 200)
  const anonymous: number[] = []
  const cached: number[] = []
  for (let i = 0; i < 500; i++) {
    anonymous.push(await timed('GET', '/health/live', undefined, 200))
    cached.push(await timed('GET', '/health/live', basic(knownUser, password), 200))
  }
  console.log('GET /health/live one at a time (500 each, alternating):')
  console.log(`  without credentials:        ${summary(anonymous)}`)
  console.log(`  with cached valid ones:     ${summary(cached)}`)
}
await agent.close()

// A flood of the costliest searches of GET /events from several connections, while one more
// connection asks a cheap path (/health/live by default) over and over: whether the service keeps
// answering while it searches (better-sqlite3 is synchronous: a statement on the event loop stops
// every request; PostgreSQL's pool can be held by slow statements: cheap reads queue behind them).
// Used by bench/event-loop-flood.ts, test/floods/sqlite-search.test.ts and
// test/floods/postgres-bulkhead.test.ts.
import { Agent, request } from 'undici'

/** The searches no index bounds on a database of `events` benchmark events (bench/seed-store.ts). */
export function costlySearches(events: number): string[] {
  const deep = Math.max(1, Math.floor((events / 20) * 0.8))
  return [
    '/events?q=a', // every title has an "a": the count reads every row
    '/events?q=ab', // no title has "ab": the page walks the whole date order, the count every row
    '/events?q=%23&per_page=100', // "#": in every title
    '/events?q=%7E', // "~": in none
    '/events?q=5k', // a person's short search
    `/events?from=2000-01-01T00:00:00Z&page=${deep}`,
    `/events?to=2100-01-01T00:00:00Z&page=${deep}`,
    '/events?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z',
  ]
}

export interface FloodAnswer {
  readonly path: string
  readonly status: number
  readonly retryAfter: string | undefined
  readonly contentType: string | undefined
  readonly body: string
  readonly ms: number
}

export interface FloodResult {
  readonly answers: FloodAnswer[]
  /** The probe's answers per 100 ms window, from the flood's start to its end. */
  readonly healthWindows: number[]
  /** The longest the probe took, in ms. */
  readonly healthMaxMs: number
  readonly healthAnswers: number
  /** Each answered (200) probe's time, in ms, in the order sent. */
  readonly probeMs: number[]
  /** The probe's answers other than 200: status, time and the start of the body. */
  readonly probeFailures: string[]
}

export async function flood(
  baseUrl: string,
  {
    paths,
    connections,
    durationMs,
    probe = '/health/live',
  }: { paths: string[]; connections: number; durationMs: number; probe?: string },
): Promise<FloodResult> {
  const agent = new Agent({ connections: connections + 1, pipelining: 1 })
  // One probe before the clock starts. The first request of this process pays for its own start:
  // undici's code compiled on first use and a new connection, 60–90 ms of the client's time on a
  // slow machine, which the first 100 ms window then counted against the service. The flood has
  // not begun: this says nothing of how the service answers under it.
  await (await request(`${baseUrl}${probe}`, { dispatcher: agent, headersTimeout: 120_000 })).body.text()
  const started = performance.now()
  const until = started + durationMs
  const answers: FloodAnswer[] = []
  let next = 0
  const searcher = async () => {
    while (performance.now() < until) {
      const path = paths[next++ % paths.length] as string
      const sent = performance.now()
      const res = await request(`${baseUrl}${path}`, { dispatcher: agent, headersTimeout: 120_000 })
      const body = await res.body.text()
      const header = (name: string) => {
        const value = res.headers[name]
        return Array.isArray(value) ? value.join(', ') : value
      }
      answers.push({
        path,
        status: res.statusCode,
        retryAfter: header('retry-after'),
        contentType: header('content-type'),
        body,
        ms: performance.now() - sent,
      })
    }
  }
  const healthAt: number[] = []
  const probeMs: number[] = []
  const probeFailures: string[] = []
  let healthMaxMs = 0
  const prober = async () => {
    while (performance.now() < until) {
      const sent = performance.now()
      const res = await request(`${baseUrl}${probe}`, { dispatcher: agent, headersTimeout: 120_000 })
      const text = await res.body.text()
      const now = performance.now()
      if (res.statusCode !== 200) {
        probeFailures.push(`${res.statusCode} after ${(now - sent).toFixed(0)} ms: ${text.slice(0, 200)}`)
        continue
      }
      healthAt.push(now - started)
      probeMs.push(now - sent)
      healthMaxMs = Math.max(healthMaxMs, now - sent)
    }
  }
  try {
    await Promise.all([prober(), ...Array.from({ length: connections }, searcher)])
  } finally {
    await agent.close()
  }
  const healthWindows = Array.from({ length: Math.floor(durationMs / 100) }, () => 0)
  for (const at of healthAt) {
    const window = Math.floor(at / 100)
    if (window < healthWindows.length) healthWindows[window] = (healthWindows[window] ?? 0) + 1
  }
  return { answers, healthWindows, healthMaxMs, healthAnswers: healthAt.length, probeMs, probeFailures }
}

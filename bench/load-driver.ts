// The load generator, a process of its own (pinned to its own core when bench/pinning.ts can):
// it receives runs over IPC, drives them with wrk where it is installed (bench/wrk-driver.ts) and
// autocannon otherwise (or when asked: --load autocannon), and answers with the
// figures. Kept apart from the harness so that the process measuring is not the process making the
// load; wrk runs as its child, on the same core.
import autocannon, { type Result } from 'autocannon'
import { type DrawnRequest, drawRequest, type RequestPlan } from './scenarios.ts'
import { findWrk, runWrk } from './wrk-driver.ts'

export type LoadGenerator = 'wrk' | 'autocannon'

export interface LoadRun {
  readonly plan: RequestPlan
  readonly connections: number
  /** Either a time in seconds or a number of requests. */
  readonly length: { readonly seconds: number } | { readonly requests: number }
  /** `auto`: wrk when installed. */
  readonly generator: LoadGenerator | 'auto'
}

export interface LoadFigures {
  readonly requests: number
  readonly seconds: number
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly non2xx: number
  /** Socket errors and timeouts. */
  readonly socketErrors: number
  readonly timeouts: number
  readonly statusCodes: Record<string, number>
  /** What made the load. */
  readonly driver: LoadGenerator
}

/** Loaded only for signed runs: packages/client/src/sign-request.ts, exactly as a client would sign. */
async function signer(plan: RequestPlan): Promise<((request: DrawnRequest) => DrawnRequest) | undefined> {
  const key = plan.signingKey
  if (!key) return undefined
  const { signRequest } = await import('../packages/client/src/sign-request.ts')
  return (request) => ({
    ...request,
    headers: {
      ...request.headers,
      ...signRequest({
        method: request.method,
        url: `${plan.baseUrl}${request.path}`,
        headers: request.headers,
        ...(request.body !== undefined && { body: request.body }),
        keyId: key.id,
        secret: key.secret,
      }),
    },
  })
}

const wrk = findWrk()

async function run(load: LoadRun): Promise<LoadFigures> {
  const { plan, connections, length, generator } = load
  if (generator === 'wrk' && !wrk) throw new Error('--load wrk: wrk is not installed (apt-get install wrk)')
  const sign = await signer(plan)
  // Both sides of a scenario get the same generator: the baseline's unsigned PUTs too.
  if (wrk && generator !== 'autocannon') return runWrk(wrk, load, sign)
  const result = await new Promise<Result>((resolve, reject) => {
    autocannon(
      {
        url: plan.baseUrl,
        connections,
        timeout: 10,
        // Counted runs end at the next sample tick: a short tick keeps a short run short.
        ...('seconds' in length ? { duration: length.seconds } : { amount: length.requests, sampleInt: 50 }),
        requests: [{ setupRequest: (request) => ({ ...request, ...drawRequest(plan, Math.random, sign) }) }],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    )
  })
  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000
  const requests = result['2xx'] + result.non2xx
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([k, v]) => [k, v.count]))
  return {
    requests,
    seconds,
    rps: seconds > 0 ? requests / seconds : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    // A 304 is the answer a revalidation asks for (scenario revalidate-event).
    non2xx: result.non2xx - (statusCodes['304'] ?? 0),
    socketErrors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    driver: 'autocannon',
  }
}

process.on('message', (message: { id: number; run: LoadRun }) => {
  run(message.run).then(
    (figures) => process.send?.({ id: message.id, figures }),
    (error: Error) => process.send?.({ id: message.id, error: error.message }),
  )
})
process.on('disconnect', () => process.exit(0))

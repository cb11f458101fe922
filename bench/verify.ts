// Before anything is measured: do the service and the baseline answer the same operations with
// the same bytes? Both start from copies of one database, and the writes here are made on both
// alike, so they stay copies. A difference is reported, never hidden: it means the baseline is not
// doing the service's work and the ratio says less.
import type { DrawnRequest } from './scenarios.ts'

/** Fields compared by name only: their values differ between any two answers (an id, a count, the time). */
const volatile = new Set(['x-request-id', 'ratelimit', 'date', 'keep-alive', 'connection'])

export interface Verification {
  readonly identical: boolean
  readonly differences: string[]
}

async function send(baseUrl: string, request: DrawnRequest) {
  const res = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    // fetch asks for gzip and br by itself; the load generators ask for no coding, nor do the checks.
    headers: { 'accept-encoding': 'identity', ...request.headers },
    ...(request.body !== undefined && { body: request.body }),
  })
  return { status: res.status, headers: res.headers, body: await res.text() }
}

export async function verifySameBytes(
  service: { baseUrl: string; authorization: string },
  baseline: { baseUrl: string },
  events: number,
): Promise<Verification> {
  const json = { accept: 'application/json', 'content-type': 'application/json' }
  const id = Math.max(1, Math.floor(events / 2))
  // Node 20's fetch refuses a body on GET, so pages are asked for in the query string here; the
  // runs send the JSON body, which the contract makes equivalent.
  const checks: { what: string; request: DrawnRequest }[] = [
    { what: `GET /events/${id}`, request: { method: 'GET', path: `/events/${id}`, headers: {} } },
    // Every event is at version 1 until the PUT below (bench/dataset.ts).
    {
      what: `GET /events/${id} revalidated`,
      request: { method: 'GET', path: `/events/${id}`, headers: { 'if-none-match': '"v1"' } },
    },
    {
      what: 'GET /events page 2',
      request: { method: 'GET', path: '/events?page=2&per_page=20', headers: {} },
    },
    ...[
      `from=2027-03-01T00:00:00Z&to=2027-03-08T00:00:00Z`,
      'location_id=1',
      `q=${encodeURIComponent(`#${Math.min(events, 123)}`)}`,
    ].map((filter) => ({
      what: `GET /events?${filter}`,
      request: { method: 'GET' as const, path: `/events?${filter}&page=1&per_page=20`, headers: {} },
    })),
    {
      what: `PUT /events/${id}`,
      request: {
        method: 'PUT',
        path: `/events/${id}`,
        headers: json,
        body: JSON.stringify({ title: 'Checked by the benchmark', date: '2027-03-04T05:06:07.089+01:00' }),
      },
    },
    {
      what: 'POST /events',
      request: {
        method: 'POST',
        path: '/events',
        headers: json,
        body: JSON.stringify({
          title: 'Made by the benchmark',
          date: '2027-05-06T07:08:09Z',
          location_id: 1,
        }),
      },
    },
  ]
  const differences: string[] = []
  for (const { what, request } of checks) {
    const writes = request.method !== 'GET'
    const a = await send(service.baseUrl, {
      ...request,
      headers: writes ? { ...request.headers, authorization: service.authorization } : request.headers,
    })
    const b = await send(baseline.baseUrl, request)
    if (a.status !== b.status)
      differences.push(`${what}: status ${a.status} (service) vs ${b.status} (baseline)`)
    // Behind a trusted proxy (the runs through nginx) both write absolute links, each at its own port.
    const own = (value: string | null, base: string) => value?.replaceAll(base, '') ?? null
    // Every field either side sends: the same names, and the same values but for the volatile ones.
    const names = new Set([...a.headers.keys(), ...b.headers.keys()])
    for (const name of names) {
      if (volatile.has(name) && a.headers.has(name) === b.headers.has(name)) continue
      const x = own(a.headers.get(name), service.baseUrl)
      const y = own(b.headers.get(name), baseline.baseUrl)
      if (x !== y)
        differences.push(`${what}: ${name} ${JSON.stringify(x)} (service) vs ${JSON.stringify(y)} (baseline)`)
    }
    if (a.body !== b.body) differences.push(`${what}: the bodies differ`)
  }
  return { identical: differences.length === 0, differences }
}

// The scenarios: what each request of a run looks like. Pure data and functions, shared by the load
// driver (bench/load-driver.ts) and the report. Each request is drawn at random from the data set:
// ids 1..events exist in both the service's and the baseline's copy of the database.

export type ScenarioName =
  | 'get-event'
  | 'get-page'
  | 'deep-page'
  | 'put-event'
  | 'signed-put-event'
  | 'post-event'
  | 'mix-90-10'
  | 'growth-get-event'
  | 'growth-get-page-1'
  | 'filter-dates'
  | 'filter-location'
  | 'filter-q'
  | 'browser-get-event'
  | 'revalidate-event'
  | 'proxied-get-event'
  | 'proxied-get-page'

export interface Scenario {
  readonly name: ScenarioName
  /** One line for the report: what it measures. */
  readonly what: string
  /** The service's requests are authenticated (Basic or signed); the baseline's never are. */
  readonly auth: 'none' | 'basic' | 'signature'
  /** Clients at once, where the scenario measures latency rather than throughput (else --connections). */
  readonly connections?: number
  /** Sent through nginx (bench/nginx.ts) to each server, the service with TRUST_PROXY naming it. */
  readonly viaNginx?: boolean
}

export const scenarios: Record<ScenarioName, Scenario> = {
  'get-event': { name: 'get-event', what: 'GET /events/<random id>', auth: 'none' },
  'get-page': {
    name: 'get-page',
    what: 'GET /events with a JSON body {"page": <random>, "per_page": 20}',
    auth: 'none',
  },
  'deep-page': {
    name: 'deep-page',
    what: 'GET /events at 80% of the collection (page 40,000 of 1,000,000 at per_page 20), one client at a time',
    auth: 'none',
    // The target is a latency (p50 under 50 ms): with one client, p50 is the time of one request,
    // not the queue behind the others.
    connections: 1,
  },
  'put-event': {
    name: 'put-event',
    what: 'PUT /events/<random id>, Basic auth (the same credentials each time); baseline unauthenticated',
    auth: 'basic',
  },
  'signed-put-event': {
    name: 'signed-put-event',
    what: 'PUT /events/<random id> signed (RFC 9421, ers-v1), a fresh nonce each time; baseline unauthenticated',
    auth: 'signature',
  },
  'post-event': {
    name: 'post-event',
    what: 'POST /events, Basic auth; baseline unauthenticated',
    auth: 'basic',
  },
  'mix-90-10': {
    name: 'mix-90-10',
    what: '70% GET /events/<id>, 20% GET a random page, 10% authenticated PUT',
    auth: 'basic',
  },
  'growth-get-event': { name: 'growth-get-event', what: 'GET /events/<random id>', auth: 'none' },
  'growth-get-page-1': {
    name: 'growth-get-page-1',
    what: 'GET /events with {"page": 1, "per_page": 20}',
    auth: 'none',
  },
  'filter-dates': {
    name: 'filter-dates',
    what: 'GET /events with {"from": <random day>, "to": <a week later>, "per_page": 20}',
    auth: 'none',
  },
  'filter-location': {
    name: 'filter-location',
    what: 'GET /events with {"location_id": <random location>, "per_page": 20}',
    auth: 'none',
  },
  'filter-q': {
    name: 'filter-q',
    what: 'GET /events with {"q": "#<random id>", "per_page": 20}: the titles containing it',
    auth: 'none',
  },
  'browser-get-event': {
    name: 'browser-get-event',
    what: "GET /events/<random id> as a page's fetch() in Chromium 131 sends it (sec-ch-ua*, sec-fetch-*, user-agent, accept-language, accept-encoding gzip/br/zstd, referer, priority)",
    auth: 'none',
  },
  'revalidate-event': {
    name: 'revalidate-event',
    what: 'GET /events/<random id> with If-None-Match of its current ETag: 304',
    auth: 'none',
  },
  'proxied-get-event': {
    name: 'proxied-get-event',
    what: 'GET /events/<random id> through nginx (X-Forwarded-For/-Proto, TRUST_PROXY=127.0.0.1, nginx’s address)',
    auth: 'none',
    viaNginx: true,
  },
  'proxied-get-page': {
    name: 'proxied-get-page',
    what: 'GET /events?page=<random>&per_page=20 through nginx, Accept-Encoding gzip (TRUST_PROXY=127.0.0.1)',
    auth: 'none',
    viaNginx: true,
  },
}

/** What a load driver needs to draw requests for one target. */
export interface RequestPlan {
  readonly scenario: ScenarioName
  readonly baseUrl: string
  /** Events 1..events exist. */
  readonly events: number
  readonly locations: number
  readonly perPage: number
  /** `Basic …` for the service; absent for the baseline. */
  readonly authorization?: string
  /** An API key for signed requests (service only). */
  readonly signingKey?: { readonly id: string; readonly secret: string }
}

export interface DrawnRequest {
  method: 'GET' | 'PUT' | 'POST'
  path: string
  headers: Record<string, string>
  body?: string
}

export type Random = () => number

const between = (random: Random, low: number, high: number) => low + Math.floor(random() * (high - low + 1))

const eventDate = (random: Random) => iso(Date.UTC(2027, 0, 1) + between(random, 0, 364) * 86_400_000)

function getEvent(plan: RequestPlan, random: Random): DrawnRequest {
  return {
    method: 'GET',
    path: `/events/${between(random, 1, plan.events)}`,
    headers: { accept: 'application/vnd.service.event+json' },
  }
}

function getPage(
  plan: RequestPlan,
  page: number,
  filter: Record<string, string | number> = {},
): DrawnRequest {
  return {
    method: 'GET',
    path: '/events',
    headers: { accept: 'application/vnd.service.events+json', 'content-type': 'application/json' },
    body: JSON.stringify({ ...filter, page, per_page: plan.perPage }),
  }
}

/**
 * The fields Chromium 131 on Linux sends with a page's fetch() of a same-origin JSON resource
 * (copied from DevTools, cookies aside): what a browser client of the API costs to read.
 */
const chromiumFields = {
  'sec-ch-ua': '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
  'sec-ch-ua-mobile': '?0',
  'sec-ch-ua-platform': '"Linux"',
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  accept: 'application/vnd.service.event+json',
  'sec-fetch-site': 'same-origin',
  'sec-fetch-mode': 'cors',
  'sec-fetch-dest': 'empty',
  referer: 'http://127.0.0.1/events',
  'accept-encoding': 'gzip, deflate, br, zstd',
  'accept-language': 'en-GB,en-US;q=0.9,en;q=0.8',
  priority: 'u=1, i',
  connection: 'keep-alive',
}

/**
 * The ETag every event of the data set has while no write touched it (bench/dataset.ts imports
 * each at version 1; the read scenarios run before the writes).
 */
const importedEtag = '"v1"'

function eventRequest(plan: RequestPlan, random: Random, headers: Record<string, string>): DrawnRequest {
  return { method: 'GET', path: `/events/${between(random, 1, plan.events)}`, headers }
}

/** A page as a query string (what nginx forwards unchanged, unlike a GET body it may drop). */
function queryPage(plan: RequestPlan, random: Random): DrawnRequest {
  const page = between(random, 1, Math.max(1, Math.ceil(plan.events / plan.perPage)))
  return {
    method: 'GET',
    path: `/events?page=${page}&per_page=${plan.perPage}`,
    headers: { accept: 'application/vnd.service.events+json', 'accept-encoding': 'gzip' },
  }
}

const day = 86_400_000

/**
 * The first page of a filter drawn at random from the data set (bench/dataset.ts): a week of the
 * ~19 years its dates span (about 1,000 events at a million), one location (the events of one in
 * a thousand), or an id's number as written in the titles ("Benchmark event #<id>": a few).
 */
function filteredPage(plan: RequestPlan, random: Random, by: 'dates' | 'location' | 'q'): DrawnRequest {
  if (by === 'location') return getPage(plan, 1, { location_id: between(random, 1, plan.locations) })
  // At least 3 characters (#100…), as a substring index needs.
  if (by === 'q') return getPage(plan, 1, { q: `#${between(random, 100, Math.max(100, plan.events))}` })
  const from = Date.UTC(2027, 0, 1) + between(random, 0, 19 * 365) * day
  return getPage(plan, 1, { from: iso(from), to: iso(from + 7 * day) })
}

const iso = (millis: number) => new Date(millis).toISOString().replace('.000Z', 'Z')

const randomPage = (plan: RequestPlan, random: Random) =>
  getPage(plan, between(random, 1, Math.max(1, Math.ceil(plan.events / plan.perPage))))

/** The page 80% of the way into the collection: page 40,000 of a million events at 20 a page. */
export const deepPage = (plan: RequestPlan) => Math.max(1, Math.floor((plan.events * 0.8) / plan.perPage))

function withAuthorization(plan: RequestPlan, request: DrawnRequest): DrawnRequest {
  if (plan.authorization === undefined) return request
  return { ...request, headers: { ...request.headers, authorization: plan.authorization } }
}

function putEvent(plan: RequestPlan, random: Random): DrawnRequest {
  const n = between(random, 1, 1_000_000)
  return withAuthorization(plan, {
    method: 'PUT',
    path: `/events/${between(random, 1, plan.events)}`,
    headers: { accept: 'application/vnd.service.event+json', 'content-type': 'application/json' },
    body: JSON.stringify({ title: `Updated by the benchmark #${n}`, date: eventDate(random) }),
  })
}

function postEvent(plan: RequestPlan, random: Random): DrawnRequest {
  return withAuthorization(plan, {
    method: 'POST',
    path: '/events',
    headers: { accept: 'application/vnd.service.event+json', 'content-type': 'application/json' },
    body: JSON.stringify({
      title: `Created by the benchmark #${between(random, 1, 1_000_000)}`,
      date: eventDate(random),
      location_id: between(random, 1, plan.locations),
    }),
  })
}

/**
 * The next request of a scenario. `sign` adds the signature fields to a request (the load driver
 * passes packages/client/src/sign-request.ts; without a key the request goes unsigned, as to the baseline).
 */
export function drawRequest(
  plan: RequestPlan,
  random: Random = Math.random,
  sign?: (request: DrawnRequest) => DrawnRequest,
): DrawnRequest {
  switch (plan.scenario) {
    case 'get-event':
    case 'growth-get-event':
      return getEvent(plan, random)
    case 'get-page':
      return randomPage(plan, random)
    case 'growth-get-page-1':
      return getPage(plan, 1)
    case 'deep-page':
      return getPage(plan, deepPage(plan))
    case 'put-event':
      return putEvent(plan, random)
    case 'signed-put-event': {
      const unsigned = putEvent({ ...plan, authorization: undefined }, random)
      return plan.signingKey && sign ? sign(unsigned) : unsigned
    }
    case 'post-event':
      return postEvent(plan, random)
    case 'filter-dates':
      return filteredPage(plan, random, 'dates')
    case 'filter-location':
      return filteredPage(plan, random, 'location')
    case 'filter-q':
      return filteredPage(plan, random, 'q')
    case 'browser-get-event':
      return eventRequest(plan, random, chromiumFields)
    case 'revalidate-event':
      return eventRequest(plan, random, {
        accept: 'application/vnd.service.event+json',
        'if-none-match': importedEtag,
      })
    case 'proxied-get-event':
      return getEvent(plan, random)
    case 'proxied-get-page':
      return queryPage(plan, random)
    case 'mix-90-10': {
      const roll = random()
      if (roll < 0.7) return getEvent(plan, random)
      if (roll < 0.9) return randomPage(plan, random)
      return putEvent(plan, random)
    }
  }
}

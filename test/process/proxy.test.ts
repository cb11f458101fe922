// Links behind a path-prefixing proxy: a real nginx maps /api/ to the service's root, as the
// example in docs/operations.md does. With TRUST_PROXY naming the proxy, Link (RFC 8288) and Location
// (RFC 9110 §10.2.2) are absolute URLs at the proxy, prefix included, so a client follows them as
// they are; body `uri`s stay paths relative to the base URL (seed §2). Forged X-Forwarded-* fields
// from anyone else change nothing.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { request } from 'undici'
import { type Nginx, nginxSkipReason, startNginx } from '../support/nginx.ts'
import { type Response, readResponse, startService, type TestService } from '../support/service.ts'
import { type StoreTarget, storeTargets } from '../support/stores.ts'

const eventBody = { 'content-type': 'application/json' }

/** Sends a request to an absolute URL exactly as given. */
async function follow(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
) {
  const res = await request(url, {
    method: (options.method ?? 'GET') as 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  })
  return readResponse(res)
}

/** The target of each relation in a Link field (RFC 8288 §3). */
function linkTargets(res: Response): Record<string, string> {
  const targets: Record<string, string> = {}
  for (const [, target = '', rel = ''] of (res.header('link') ?? '').matchAll(
    /<([^>]*)>;\s*rel="([^"]*)"/g,
  )) {
    targets[rel] = target
  }
  return targets
}

/** A service on a database of its own with one location and `events` events in it. */
async function serviceWithEvents(target: StoreTarget, trustProxy: string | undefined, events: number) {
  const service = await startService(target, trustProxy === undefined ? {} : { trustProxy })
  const location = await service.store.createLocation({ name: 'Town Hall', address: '1 Market Square' })
  for (let n = 1; n <= events; n++) {
    await service.store.createEvent({
      title: `Event ${n}`,
      date: Date.UTC(2027, 0, n),
      locationId: location.id,
    })
  }
  return { service, locationId: location.id }
}

for (const target of storeTargets) {
  describe(`[${target.name}] links through a real nginx that maps /api/ to the service`, {
    skip: nginxSkipReason,
  }, () => {
    let trusting: TestService
    let plain: TestService
    let nginx: Nginx
    let locationId: number
    let plainLocationId: number
    /** The base URL a client uses: the proxy's address and prefix. */
    let api: string

    before(async () => {
      ;({ service: trusting, locationId } = await serviceWithEvents(target, '127.0.0.1', 5))
      ;({ service: plain, locationId: plainLocationId } = await serviceWithEvents(target, undefined, 5))
      // The same kind of location for both; only the service behind /api/ trusts the proxy.
      nginx = await startNginx([
        { prefix: '/api', upstreamPort: trusting.port },
        { prefix: '/plain', upstreamPort: plain.port },
      ])
      api = `${nginx.origin}/api`
    })
    after(async () => {
      await nginx?.stop()
      await trusting?.close()
      await plain?.close()
    })

    it('GET /api/events?per_page=2 links first, next and last at the proxy, prefix included', async () => {
      const res = await follow(`${api}/events?per_page=2`)
      assert.equal(res.status, 200)
      assert.deepEqual(linkTargets(res), {
        first: `${nginx.origin}/api/events?page=1&per_page=2`,
        next: `${nginx.origin}/api/events?page=2&per_page=2`,
        last: `${nginx.origin}/api/events?page=3&per_page=2`,
      })
    })

    it('every Link target, followed exactly as given through the proxy, answers 200 with its page', async () => {
      const middle = await follow(`${api}/events?page=2&per_page=2`)
      const targets = linkTargets(middle)
      assert.deepEqual(Object.keys(targets).sort(), ['first', 'last', 'next', 'prev'])
      const expectedTitles: Record<string, string[]> = {
        first: ['Event 1', 'Event 2'],
        prev: ['Event 1', 'Event 2'],
        next: ['Event 5'],
        last: ['Event 5'],
      }
      for (const [rel, url] of Object.entries(targets)) {
        const page = await follow(url)
        assert.equal(page.status, 200, `${rel} → ${url}`)
        const titles = page.json().events.map((e: { title: string }) => e.title)
        assert.deepEqual(titles, expectedTitles[rel], `${rel} → ${url}`)
      }
    })

    it('a 304 to a conditional GET through the proxy carries the same Link targets', async () => {
      const first = await follow(`${api}/events?per_page=2`)
      const again = await follow(`${api}/events?per_page=2`, {
        headers: { 'if-none-match': first.header('etag') ?? '' },
      })
      assert.equal(again.status, 304)
      assert.deepEqual(linkTargets(again), linkTargets(first))
    })

    it('POST /api/events gives a Location that, followed as given through the proxy, answers 200 with that event', async () => {
      const created = await follow(`${api}/events`, {
        method: 'POST',
        headers: { ...eventBody, authorization: trusting.editorAuth },
        body: { title: 'Through the proxy', date: '2027-06-01T18:00:00Z', location_id: locationId },
      })
      assert.equal(created.status, 201)
      const id = created.json().id
      assert.equal(created.header('location'), `${nginx.origin}/api/events/${id}`)

      const event = await follow(created.header('location') ?? '')
      assert.equal(event.status, 200)
      assert.equal(event.json().id, id)
      assert.equal(event.json().title, 'Through the proxy')
    })

    it('keeps body uris as paths relative to the base URL; base URL + uri answers through the proxy', async () => {
      const list = await follow(`${api}/events?per_page=1`)
      const [event] = list.json().events
      assert.deepEqual(
        event.links.map((link: { uri: string }) => link.uri),
        [`/events/${event.id}`, `/locations/${locationId}`],
      )
      // How a client resolves a body uri: the base URL it uses, then the path.
      for (const { uri } of event.links) {
        assert.equal((await follow(`${api}${uri}`)).status, 200, uri)
      }
    })

    it('behind the same proxy, a service without TRUST_PROXY keeps root-relative Link and Location', async () => {
      const list = await follow(`${nginx.origin}/plain/events?per_page=2`)
      assert.equal(list.status, 200)
      assert.equal(linkTargets(list).next, '/events?page=2&per_page=2')

      const created = await follow(`${nginx.origin}/plain/events`, {
        method: 'POST',
        headers: { ...eventBody, authorization: plain.editorAuth },
        body: { title: 'Untrusted proxy', date: '2027-06-01T18:00:00Z', location_id: plainLocationId },
      })
      assert.equal(created.status, 201)
      assert.equal(created.header('location'), `/events/${created.json().id}`)
    })
  })
}

// Direct requests, no proxy: who may set the base URL. Run on SQLite only: the fields are read and
// the headers rewritten around the handler, the same whatever the store.
describe('forged and invalid X-Forwarded-* fields sent straight to the service', () => {
  const [sqlite] = storeTargets as [StoreTarget]
  const forged = {
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'evil.example',
    'x-forwarded-prefix': '/phish',
    'x-forwarded-for': '10.0.0.1',
  }
  const services: TestService[] = []
  const start = async (trustProxy: string | undefined) => {
    const { service, locationId } = await serviceWithEvents(sqlite, trustProxy, 3)
    services.push(service)
    return { service, locationId }
  }
  after(async () => {
    for (const service of services) await service.close()
  })

  /** Link of a page and Location of a new event, as this client sees them. */
  async function linkAndLocation(service: TestService, locationId: number, headers: Record<string, string>) {
    const list = await service.request('GET', '/events?per_page=2', { headers })
    const created = await service.request('POST', '/events', {
      headers: { ...headers, ...eventBody, authorization: service.editorAuth },
      body: { title: 'Forged', date: '2027-06-01T18:00:00Z', location_id: locationId },
    })
    assert.equal(list.status, 200)
    assert.equal(created.status, 201)
    return { link: list.header('link'), location: created.header('location'), id: created.json().id }
  }

  const rootRelativeLink =
    '</events?page=1&per_page=2>; rel="first", </events?page=2&per_page=2>; rel="next", ' +
    '</events?page=2&per_page=2>; rel="last"'

  it('a service whose TRUST_PROXY list leaves out the caller answers exactly as without TRUST_PROXY', async () => {
    const { service, locationId } = await start('10.0.0.0/8,192.168.0.1')
    const { link, location, id } = await linkAndLocation(service, locationId, forged)
    assert.equal(link, rootRelativeLink)
    assert.equal(location, `/events/${id}`)
  })

  it('a service without TRUST_PROXY ignores forged fields', async () => {
    const { service, locationId } = await start(undefined)
    const { link, location, id } = await linkAndLocation(service, locationId, forged)
    assert.equal(link, rootRelativeLink)
    assert.equal(location, `/events/${id}`)
  })

  it('from a trusted peer, X-Forwarded-Proto, -Host and -Prefix make the Link and Location URLs', async () => {
    const { service, locationId } = await start('127.0.0.1')
    const { link, location, id } = await linkAndLocation(service, locationId, {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'events.example:8443',
      'x-forwarded-prefix': '/tenants/acme/',
    })
    assert.match(
      link ?? '',
      /^<https:\/\/events\.example:8443\/tenants\/acme\/events\?page=1&per_page=2>; rel="first"/,
    )
    assert.equal(location, `https://events.example:8443/tenants/acme/events/${id}`)
  })

  it('from a trusted peer, invalid values are ignored and never echoed: the connection and Host decide', async () => {
    const { service, locationId } = await start('127.0.0.1')
    const { link, location, id } = await linkAndLocation(service, locationId, {
      'x-forwarded-proto': 'javascript',
      'x-forwarded-host': 'evil.example/phish?',
      'x-forwarded-prefix': '/api/../admin',
    })
    assert.doesNotMatch(`${link} ${location}`, /javascript|evil|phish|admin|\.\./)
    assert.equal(location, `${service.baseUrl}/events/${id}`)
    assert.match(link ?? '', new RegExp(`^<${service.baseUrl}/events\\?page=1&per_page=2>; rel="first"`))
  })

  it('with a hop count, the nearest peer counts as a proxy whoever it is', async () => {
    const { service, locationId } = await start('1')
    const { location, id } = await linkAndLocation(service, locationId, { 'x-forwarded-prefix': '/api' })
    assert.equal(location, `${service.baseUrl}/api/events/${id}`)
  })
})

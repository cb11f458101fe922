// Content coding (src/http/compression.ts): answers of 1 KB or more in br or gzip when asked, the
// same body once decoded, Vary: Accept-Encoding, an ETag per coding that preconditions accept, and
// a change feed that is never coded nor held back.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { request } from 'undici'
import { contractService, jsonHeaders, types } from '../support/contract.ts'
import { openFeed } from '../support/sse.ts'
import { storeTargets } from '../support/stores.ts'

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  /** The body as sent. */
  readonly bytes: Buffer
  /** The body decoded from its Content-Encoding. */
  readonly decoded: string
  header(name: string): string | undefined
}

async function raw(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Raw> {
  const res = await request(`${baseUrl}${path}`, {
    method: method as 'GET',
    headers,
    ...(body !== undefined && { body }),
  })
  const bytes = Buffer.from(await res.body.arrayBuffer())
  const coding = res.headers['content-encoding']
  const decoded = (
    method === 'HEAD' || bytes.length === 0
      ? bytes
      : coding === 'gzip'
        ? gunzipSync(bytes)
        : coding === 'br'
          ? brotliDecompressSync(bytes)
          : bytes
  ).toString('utf8')
  return {
    status: res.statusCode,
    headers: res.headers,
    bytes,
    decoded,
    header: (name) => {
      const value = res.headers[name]
      return Array.isArray(value) ? value.join(', ') : value
    },
  }
}

const varyTokens = (res: Raw) =>
  (res.header('vary') ?? '')
    .toLowerCase()
    .split(',')
    .map((t) => t.trim())

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
/** Four bytes of UTF-8 each: 300 of them make a location's answer well over 1 KB. */
const longAddress = '🎉'.repeat(300)

for (const target of storeTargets) {
  describe(`[${target.name}] compression`, () => {
    const c = contractService(target)
    const get = (path: string, headers: Record<string, string> = {}) =>
      raw(c.service.baseUrl, 'GET', path, headers)
    let locationId = 0

    it('is set up: events enough for a page well over 1 KB, and a location over 1 KB', async () => {
      for (let i = 0; i < 12; i++) await c.createEvent()
      locationId = await c.newLocation('Hall with a long address', longAddress)
    })

    it('gives every answer the same body coded and not, codes those of 1 KB or more, and varies on Accept-Encoding', async () => {
      const event = (await get('/events?per_page=1', { accept: types.events })).decoded
      const eventId = (JSON.parse(event) as { events: { id: number }[] }).events[0]?.id
      const cases: [string, Record<string, string>][] = [
        ['/', { accept: types.api }],
        ['/events?per_page=100', { accept: types.events }],
        ['/events?per_page=100', { accept: browserAccept }],
        [`/events/${eventId}`, { accept: types.event }],
        [`/events/${eventId}`, { accept: browserAccept }],
        ['/locations', { accept: types.locations }],
        [`/locations/${locationId}`, { accept: types.location }],
        ['/openapi.json', {}],
        ['/events/987654321', { accept: types.event }],
        ['/events', { accept: 'image/png' }],
      ]
      for (const [path, headers] of cases) {
        const plain = await get(path, headers)
        assert.equal(plain.header('content-encoding'), undefined, path)
        assert.ok(varyTokens(plain).includes('accept-encoding'), `${path}: Vary ${plain.header('vary')}`)
        for (const coding of ['gzip', 'br']) {
          const where = `${coding} ${path} ${headers.accept ?? ''}`
          const coded = await get(path, { ...headers, 'accept-encoding': coding })
          assert.equal(coded.status, plain.status, where)
          assert.equal(coded.decoded, plain.decoded, where)
          assert.equal(coded.header('content-type'), plain.header('content-type'), where)
          assert.equal(Number(coded.header('content-length')), coded.bytes.length, where)
          assert.ok(varyTokens(coded).includes('accept-encoding'), where)
          if (plain.bytes.length >= 1024) {
            assert.equal(coded.header('content-encoding'), coding, where)
            assert.ok(coded.bytes.length < plain.bytes.length, where)
            const etag = plain.header('etag')
            if (etag) assert.equal(coded.header('etag'), `${etag.slice(0, -1)}+${coding}"`, where)
          } else {
            assert.equal(coded.header('content-encoding'), undefined, where)
            assert.equal(coded.header('etag'), plain.header('etag'), where)
          }
        }
      }
    })

    it('follows the weights of Accept-Encoding, identity when neither is acceptable', async () => {
      const path = '/events?per_page=100'
      const coding = async (field: string) =>
        (await get(path, { accept: types.events, 'accept-encoding': field })).header('content-encoding')
      assert.equal(await coding('gzip, deflate, br, zstd'), 'br')
      assert.equal(await coding('gzip;q=1, br;q=0.5'), 'gzip')
      assert.equal(await coding('br;q=0, *'), 'gzip')
      assert.equal(await coding('identity'), undefined)
      assert.equal(await coding('gzip;q=0, br;q=0'), undefined)
      assert.equal(await coding('deflate'), undefined)
    })

    it('brings a page of 100 to at most a quarter of its bytes', async () => {
      for (let i = 0; i < 90; i++) await c.createEvent()
      const plain = await get('/events?per_page=100', { accept: types.events })
      for (const coding of ['gzip', 'br']) {
        const coded = await get('/events?per_page=100', { accept: types.events, 'accept-encoding': coding })
        assert.ok(
          coded.bytes.length <= plain.bytes.length / 4,
          `${coding}: ${coded.bytes.length} of ${plain.bytes.length}`,
        )
      }
    })

    it('answers 304 to the ETag of a coded answer, with that ETag', async () => {
      for (const [path, accept] of [
        ['/events?per_page=50', types.events],
        [`/locations/${locationId}`, types.location],
      ] as const) {
        const first = await get(path, { accept, 'accept-encoding': 'gzip' })
        const etag = first.header('etag') ?? ''
        assert.match(etag, /\+gzip"$/, path)
        const again = await get(path, { accept, 'accept-encoding': 'gzip', 'if-none-match': etag })
        assert.equal(again.status, 304, path)
        assert.equal(again.header('etag'), etag, path)
        assert.ok(varyTokens(again).includes('accept-encoding'), path)
        // The identity tag names the same state: still current.
        const plainTag = `${etag.slice(0, -'+gzip"'.length)}"`
        const identity = await get(path, { accept, 'if-none-match': plainTag })
        assert.equal(identity.status, 304, path)
        assert.equal(identity.header('etag'), plainTag, path)
        // A HEAD of a coded answer says what a GET would.
        const head = await raw(c.service.baseUrl, 'HEAD', path, { accept, 'accept-encoding': 'gzip' })
        assert.equal(head.header('etag'), etag, path)
        assert.equal(head.header('content-encoding'), 'gzip', path)
        assert.equal(head.header('content-length'), first.header('content-length'), path)
      }
    })

    it('takes the ETag of a coded answer in If-Match: the PUT succeeds, a stale one is 412', async () => {
      const path = `/locations/${locationId}`
      const first = await get(path, { accept: types.location, 'accept-encoding': 'br' })
      const etag = first.header('etag') ?? ''
      assert.match(etag, /\+br"$/)
      const put = (ifMatch: string) =>
        raw(
          c.service.baseUrl,
          'PUT',
          path,
          {
            ...jsonHeaders(c.service.editorAuth),
            'content-type': types.location,
            'accept-encoding': 'gzip',
            'if-match': ifMatch,
          },
          JSON.stringify({ name: 'Renamed hall', address: longAddress }),
        )
      const written = await put(etag)
      assert.equal(written.status, 200, written.decoded)
      assert.equal(JSON.parse(written.decoded).name, 'Renamed hall')
      assert.equal(written.header('content-encoding'), 'gzip')
      assert.match(written.header('etag') ?? '', /\+gzip"$/)
      assert.equal((await put(etag)).status, 412)
      // The new tag, as written and coded, is current.
      assert.equal((await put(written.header('etag') ?? '')).status, 200)
    })

    it('streams the change feed uncoded, each event as it happens, to a client that asks for gzip', async () => {
      const feed = await openFeed(c.service.baseUrl, { 'accept-encoding': 'gzip, br' })
      try {
        assert.equal(feed.status, 200)
        assert.equal(feed.headers['content-encoding'], undefined)
        assert.ok(
          !String(feed.headers.vary ?? '')
            .toLowerCase()
            .includes('accept-encoding'),
        )
        for (let i = 1; i <= 3; i++) {
          const created = await c.createEvent()
          // Each change arrives before the next is made: nothing holds it back.
          const events = await feed.take(i)
          assert.equal(JSON.parse(events[i - 1]?.data ?? '{}').id, created.id)
        }
      } finally {
        feed.close()
      }
    })
  })
}

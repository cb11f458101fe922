// CORS (Fetch standard, "CORS protocol"): off unless CORS_ORIGINS lists origins; when on, only a
// listed origin is named in Access-Control-Allow-Origin, never with credentials (the service is
// stateless and a script sends Authorization itself), a preflight gets the resource's own methods
// and the request fields a client needs, and a plain OPTIONS keeps its answer (204 + Allow).
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { contractService, type Json, jsonHeaders, methodSet, types } from '../support/contract.ts'
import type { Response } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const allowed = 'https://app.example'
const other = 'https://evil.example'

const exposed = ['ETag', 'Link', 'Location', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id']
const clientHeaders = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
  'Signature',
  'Signature-Input',
  'Content-Digest',
  'X-Request-Id',
]

/** A comma-separated field as a sorted set of lower-case tokens. */
const tokens = (field: string | undefined) =>
  (field ?? '')
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token !== '')
    .sort()

/** Names of the Access-Control-* fields of a response. */
const corsFields = (res: Response) =>
  Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))

/** Vary names both Accept (the representation) and Origin (the CORS fields), whatever else it names. */
function assertVariesOnOriginAndAccept(res: Response, where: string) {
  const vary = tokens(res.header('vary'))
  assert.ok(vary.includes('accept'), `${where}: Vary keeps Accept: ${res.header('vary')}`)
  assert.ok(vary.includes('origin'), `${where}: Vary names Origin: ${res.header('vary')}`)
}

for (const target of storeTargets) {
  describe(`[${target.name}] CORS with CORS_ORIGINS listing ${allowed}`, () => {
    // Spelled as a person might; a browser sends the serialised origin (RFC 6454 §6.2).
    const ctx = contractService(target, {
      settings: { corsOrigins: 'HTTPS://App.Example:443, http://localhost:5173' },
    })
    let event: Json
    before(async () => {
      event = await ctx.createEvent()
    })

    it('names a listed origin (written with capitals and its default port in CORS_ORIGINS) in Access-Control-Allow-Origin, exposes the fields a client reads, and sends no credentials flag', async () => {
      for (const path of ['/events', `/events/${event.id}`]) {
        const res = await ctx.http('GET', path, { headers: { origin: allowed } })
        assert.equal(res.status, 200)
        assert.equal(res.header('access-control-allow-origin'), allowed)
        assert.deepEqual(tokens(res.header('access-control-expose-headers')), tokens(exposed.join(',')))
        assert.equal(
          res.header('access-control-allow-credentials'),
          undefined,
          'stateless: no credentials mode',
        )
        assertVariesOnOriginAndAccept(res, `GET ${path}`)
      }
    })

    it('gives errors the CORS fields too, so that a script can read the problem (401, 404, 405)', async () => {
      const unauthorised = await ctx.http('POST', '/events', {
        headers: { ...jsonHeaders(), origin: allowed },
        body: ctx.newEventBody(),
      })
      const missing = await ctx.http('GET', '/events/987654', { headers: { origin: allowed } })
      const refused = await ctx.http('DELETE', '/events', {
        headers: { origin: allowed, authorization: ctx.service.editorAuth },
      })
      for (const [status, res] of [
        [401, unauthorised],
        [404, missing],
        [405, refused],
      ] as const) {
        assert.equal(res.status, status)
        assert.equal(res.header('access-control-allow-origin'), allowed, `${status}`)
        assertVariesOnOriginAndAccept(res, `${status}`)
      }
    })

    it('allows every listed origin, each named alone', async () => {
      const res = await ctx.http('GET', '/events', { headers: { origin: 'http://localhost:5173' } })
      assert.equal(res.header('access-control-allow-origin'), 'http://localhost:5173')
    })

    it('names no other origin, and sends no CORS field to it, but still varies on Origin', async () => {
      for (const origin of [other, 'null', `${allowed}.evil.example`, 'http://app.example']) {
        const res = await ctx.http('GET', '/events', { headers: { origin } })
        assert.equal(res.status, 200)
        assert.deepEqual(corsFields(res), [], `Origin: ${origin}`)
        // A shared cache must not hand this answer to the allowed origin, nor the other way round.
        assertVariesOnOriginAndAccept(res, `Origin: ${origin}`)
      }
    })

    it('answers a preflight for PUT with If-Match and Authorization: the resource methods and the client request fields', async () => {
      const res = await ctx.http('OPTIONS', `/events/${event.id}`, {
        headers: {
          origin: allowed,
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'authorization, content-type, if-match',
        },
      })
      assert.equal(res.status, 204)
      assert.equal(res.text, '')
      assert.equal(res.header('access-control-allow-origin'), allowed)
      assert.deepEqual(methodSet(res.header('access-control-allow-methods')), methodSet(res.header('allow')))
      assert.deepEqual(
        methodSet(res.header('access-control-allow-methods')),
        ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT'],
        'the methods of an event, as its Allow says',
      )
      assert.deepEqual(tokens(res.header('access-control-allow-headers')), tokens(clientHeaders.join(',')))
      assert.ok(Number(res.header('access-control-max-age')) > 0, 'browsers may cache the preflight')
      assert.equal(res.header('access-control-allow-credentials'), undefined)
      assertVariesOnOriginAndAccept(res, 'preflight')
    })

    it('answers a preflight on the collection with its own methods', async () => {
      const res = await ctx.http('OPTIONS', '/events', {
        headers: { origin: allowed, 'access-control-request-method': 'QUERY' },
      })
      assert.equal(res.status, 204)
      assert.deepEqual(methodSet(res.header('access-control-allow-methods')), [
        'GET',
        'HEAD',
        'OPTIONS',
        'POST',
        'QUERY',
      ])
    })

    it('answers preflights on /locations, /locations/<id> and / with their own methods, and a location write with the CORS fields', async () => {
      for (const [path, methods] of [
        ['/locations', ['GET', 'HEAD', 'OPTIONS', 'POST']],
        [`/locations/${ctx.locationId}`, ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT']],
        ['/', ['GET', 'HEAD', 'OPTIONS']],
      ] as const) {
        const res = await ctx.http('OPTIONS', path, {
          headers: { origin: allowed, 'access-control-request-method': 'GET' },
        })
        assert.equal(res.status, 204, path)
        assert.deepEqual(methodSet(res.header('access-control-allow-methods')), methods, path)
      }
      const created = await ctx.http('POST', '/locations', {
        headers: { ...jsonHeaders(ctx.service.editorAuth), origin: allowed },
        body: { name: 'Cross-origin Hall', address: '1 Browser Way' },
      })
      assert.equal(created.status, 201, created.text)
      assert.equal(created.header('access-control-allow-origin'), allowed)
      assert.ok(tokens(created.header('access-control-expose-headers')).includes('location'))
    })

    it('gives a preflight from an origin not listed no CORS field, so the browser stops there', async () => {
      const res = await ctx.http('OPTIONS', `/events/${event.id}`, {
        headers: { origin: other, 'access-control-request-method': 'DELETE' },
      })
      assert.equal(res.status, 204)
      assert.deepEqual(corsFields(res), [])
    })

    it('keeps the plain OPTIONS answer: 204, Allow and Accept-Patch, no preflight fields', async () => {
      const plain = await ctx.http('OPTIONS', `/events/${event.id}`)
      assert.equal(plain.status, 204)
      assert.deepEqual(methodSet(plain.header('allow')), ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT'])
      assert.equal(plain.header('accept-patch'), types.mergePatch)
      assert.deepEqual(corsFields(plain), [])
      // With Origin but no Access-Control-Request-Method it is not a preflight (Fetch §3.2.2).
      const withOrigin = await ctx.http('OPTIONS', '/events', { headers: { origin: allowed } })
      assert.equal(withOrigin.status, 204)
      assert.ok(withOrigin.header('allow'))
      assert.equal(withOrigin.header('access-control-allow-origin'), allowed)
      assert.equal(withOrigin.header('access-control-allow-methods'), undefined)
    })

    it('answers a preflight to a path that does not exist with 404', async () => {
      const res = await ctx.http('OPTIONS', '/no/such/path', {
        headers: { origin: allowed, 'access-control-request-method': 'GET' },
      })
      assert.equal(res.status, 404)
      assert.equal(res.header('access-control-allow-methods'), undefined)
    })
  })

  describe(`[${target.name}] CORS without CORS_ORIGINS`, () => {
    const ctx = contractService(target, { location: false })

    it('sends no CORS field to any origin and varies on Accept (and Accept-Encoding where a body could be coded) only', async () => {
      for (const [method, path, headers] of [
        ['GET', '/events', { origin: allowed }],
        ['GET', '/events/987654', { origin: allowed }],
        ['OPTIONS', '/events', { origin: allowed, 'access-control-request-method': 'POST' }],
      ] as const) {
        const res = await ctx.http(method, path, { headers })
        assert.deepEqual(corsFields(res), [], `${method} ${path}`)
        const coded = method === 'OPTIONS' ? [] : ['accept-encoding']
        assert.deepEqual(tokens(res.header('vary')), ['accept', ...coded], `${method} ${path}`)
      }
    })

    it('answers a would-be preflight as a plain OPTIONS: 204 and Allow', async () => {
      const res = await ctx.http('OPTIONS', '/events', {
        headers: { origin: allowed, 'access-control-request-method': 'POST' },
      })
      assert.equal(res.status, 204)
      assert.deepEqual(methodSet(res.header('allow')), ['GET', 'HEAD', 'OPTIONS', 'POST', 'QUERY'])
    })
  })
}

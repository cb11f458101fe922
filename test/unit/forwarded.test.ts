import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import {
  externalBase,
  lastValue,
  parseHost,
  parsePrefix,
  parseProto,
  proxyTrust,
  rebaseLinkField,
  rebaseLocation,
} from '../../src/http/forwarded.ts'
import { pageLinkHeader, paths } from '../../src/http/links.ts'

describe('proxyTrust', () => {
  it('trusts nobody when TRUST_PROXY is false, so Fastify keeps its plain requests', () => {
    assert.equal(proxyTrust(false), undefined)
  })

  it('trusts every peer at every hop when TRUST_PROXY is true', () => {
    const trust = proxyTrust(true)
    assert.equal(trust?.('203.0.113.9', 0), true)
    assert.equal(trust?.('198.51.100.1', 5), true)
  })

  it('trusts the nearest n hops, whoever they are, for a hop count', () => {
    const trust = proxyTrust(2)
    assert.equal(trust?.('203.0.113.9', 0), true)
    assert.equal(trust?.('203.0.113.9', 1), true)
    assert.equal(trust?.('203.0.113.9', 2), false)
  })

  it('trusts only the listed addresses and ranges for a list, IPv4-mapped IPv6 included', () => {
    const trust = proxyTrust(['10.0.0.0/8', '::1'])
    assert.equal(trust?.('10.1.2.3', 0), true)
    assert.equal(trust?.('::ffff:10.1.2.3', 0), true)
    assert.equal(trust?.('::1', 0), true)
    assert.equal(trust?.('127.0.0.1', 0), false)
    assert.equal(trust?.('11.0.0.1', 0), false)
  })

  it('refuses a list with an address proxy-addr cannot parse, so start-up fails', () => {
    assert.throws(() => proxyTrust(['10.0.0.300']), /invalid IP address/)
  })
})

describe('lastValue', () => {
  it('takes the value the nearest proxy appended, as Fastify reads X-Forwarded-Host', () => {
    assert.equal(lastValue('/outer, /inner'), '/inner')
    assert.equal(lastValue(' /only '), '/only')
    assert.equal(lastValue(['a.example, b.example', 'c.example']), 'c.example')
    assert.equal(lastValue(undefined), undefined)
  })
})

/** Path segments made of the characters a prefix may hold. */
const safeSegment = fc
  .array(
    fc.oneof(
      fc.constantFrom(...'abcXYZ019-._~'),
      fc.constantFrom('%C3%A9', '%20', '%41', '%7E'), // percent-encodings that hide nothing
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((chars) => chars.join(''))
  .filter((segment) => segment !== '.' && segment !== '..')
const safePrefix = fc
  .array(safeSegment, { minLength: 1, maxLength: 5 })
  .map((segments) => `/${segments.join('/')}`)

describe('parsePrefix', () => {
  it('keeps a plain path prefix and drops its trailing slash', () => {
    assert.equal(parsePrefix('/api'), '/api')
    assert.equal(parsePrefix('/api/'), '/api')
    assert.equal(parsePrefix('/tenants/acme-1/v2'), '/tenants/acme-1/v2')
    assert.equal(parsePrefix('/caf%C3%A9'), '/caf%C3%A9')
  })

  it('reads "/" alone as no prefix', () => {
    assert.equal(parsePrefix('/'), '')
  })

  for (const [text, why] of [
    ['', 'empty'],
    ['api', 'not a path'],
    ['//evil.example/x', 'a network-path reference (RFC 3986 §4.2)'],
    ['/api//v1', 'an empty segment'],
    ['/api/../admin', 'a dot-dot segment'],
    ['/api/./v1', 'a dot segment'],
    ['/api/%2e%2E', 'a percent-encoded dot-dot segment'],
    ['/api%2Fv1', 'a percent-encoded slash'],
    ['/api%5Cv1', 'a percent-encoded backslash'],
    ['/api%0d%0aSet-Cookie:x', 'percent-encoded CR LF'],
    ['/api\r\nSet-Cookie: x', 'CR LF'],
    ['/api>; rel="x"', 'characters that would end a Link target'],
    ['/a p i', 'spaces'],
    ['/api?x=1', 'a query'],
    ['/api#x', 'a fragment'],
    ['/%C3', 'a percent-encoding that is not UTF-8'],
    ['/%zz', 'a broken percent-encoding'],
    ['/\u00e9', 'an unencoded non-ASCII character'],
    [`/${'a'.repeat(1100)}`, 'over 1024 characters'],
  ] as const) {
    it(`ignores a prefix with ${why}`, () => {
      assert.equal(parsePrefix(text), undefined)
    })
  }

  it('keeps every prefix of safe segments exactly, with or without a trailing slash', () => {
    fc.assert(
      fc.property(safePrefix, (prefix) => {
        assert.equal(parsePrefix(prefix), prefix)
        assert.equal(parsePrefix(`${prefix}/`), prefix)
      }),
    )
  })

  it('never gives back anything but a clean absolute path, whatever it is sent', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          safePrefix.map((p) => `${p}/..`),
        ),
        (text) => {
          const prefix = parsePrefix(text)
          if (prefix === undefined || prefix === '') return
          assert.match(prefix, /^(\/(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+)+$/)
          assert.ok(!prefix.split('/').some((s) => s === '.' || s === '..'), prefix)
        },
      ),
    )
  })
})

describe('parseHost', () => {
  for (const host of [
    'api.example.com',
    'api.example.com:8443',
    'localhost',
    '127.0.0.1:8080',
    '[::1]',
    '[2001:db8::1]:443',
    'my_service:80',
  ]) {
    it(`keeps ${host} as given`, () => {
      assert.equal(parseHost(host), host)
    })
  }

  for (const [text, why] of [
    ['', 'empty'],
    ['evil.example/path', 'a path'],
    ['user@evil.example', 'userinfo'],
    ['evil.example:', 'an empty port'],
    ['evil.example:70000', 'a port past 65535'],
    ['evil.example:80:80', 'two ports'],
    ['::1', 'an unbracketed IPv6 address'],
    ['[::1', 'an unclosed bracket'],
    ['[not-an-address]', 'a bracket without an IPv6 address'],
    ['[fe80::1%25eth0]', 'an IPv6 zone'],
    ['evil.example\r\nSet-Cookie: x', 'CR LF'],
    ['a b', 'a space'],
    ['-evil.example', 'a label starting with "-"'],
    ['evil..example', 'an empty label'],
    [`${'a'.repeat(64)}.example`, 'a label over 63 characters'],
  ] as const) {
    it(`ignores a host with ${why}`, () => {
      assert.equal(parseHost(text), undefined)
    })
  }

  it('either keeps the text exactly or ignores it, and never keeps a character that leaves the authority', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.domain(),
          fc.ipV4(),
          fc.ipV6().map((a) => `[${a}]`),
        ),
        (text) => {
          const host = parseHost(text)
          if (host === undefined) return
          assert.equal(host, text)
          assert.match(host, /^[A-Za-z0-9._:[\]-]+$/)
        },
      ),
    )
  })

  it('keeps every domain name and address with any port', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.domain(),
          fc.ipV4(),
          fc.ipV6().map((a) => `[${a}]`),
        ),
        fc.option(fc.integer({ min: 0, max: 65535 })),
        (name, port) => {
          const text = port === null ? name : `${name}:${port}`
          assert.equal(parseHost(text), text)
        },
      ),
    )
  })
})

describe('parseProto', () => {
  it('takes http and https in any case, and nothing else', () => {
    assert.equal(parseProto('https'), 'https')
    assert.equal(parseProto('HTTP'), 'http')
    for (const other of ['', 'ftp', 'javascript', 'https:', 'https://x', 'wss']) {
      assert.equal(parseProto(other), undefined, other)
    }
  })
})

describe('externalBase', () => {
  const base = (headers: Record<string, string>, encrypted = false) => externalBase({ headers, encrypted })

  it("is the proxy's public scheme, host and prefix", () => {
    assert.equal(
      base({
        host: '10.0.0.5:8080',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'api.example.com',
        'x-forwarded-prefix': '/api/',
      }),
      'https://api.example.com/api',
    )
  })

  it("falls back to the connection's scheme, the Host field and no prefix", () => {
    assert.equal(base({ host: 'service.internal:8080' }), 'http://service.internal:8080')
    assert.equal(base({ host: 'service.internal' }, true), 'https://service.internal')
  })

  it('uses the value the nearest proxy appended when several proxies each appended one', () => {
    assert.equal(
      base({
        host: 'x',
        'x-forwarded-proto': 'http, https',
        'x-forwarded-host': 'outer.example, inner.example',
        'x-forwarded-prefix': '/outer, /inner',
      }),
      'https://inner.example/inner',
    )
  })

  it('ignores invalid values, never echoing them, and falls back as if they were absent', () => {
    assert.equal(
      base({
        host: 'service.internal',
        'x-forwarded-proto': 'javascript',
        'x-forwarded-host': 'evil.example/phish',
        'x-forwarded-prefix': '/../admin',
      }),
      'http://service.internal',
    )
  })

  it('is the prefix alone when no valid host is known, still right once resolved against the request', () => {
    assert.equal(base({ 'x-forwarded-prefix': '/api' }), '/api')
    assert.equal(base({ host: 'bad host', 'x-forwarded-prefix': '/api' }), '/api')
  })
})

describe('rebaseLocation', () => {
  it('puts a root-relative Location under the base', () => {
    assert.equal(
      rebaseLocation('/events/7', 'https://api.example.com/api'),
      'https://api.example.com/api/events/7',
    )
    assert.equal(rebaseLocation('/events/7', '/api'), '/api/events/7')
    assert.equal(rebaseLocation('/events/7', ''), '/events/7')
  })

  it('leaves absolute URLs, network-path and relative-path references alone', () => {
    for (const value of ['https://elsewhere.example/x', '//elsewhere.example/x', 'events/7']) {
      assert.equal(rebaseLocation(value, 'https://api.example.com/api'), value)
    }
  })
})

describe('rebaseLinkField', () => {
  it('puts every paging target under the base and keeps the parameters', () => {
    assert.equal(
      rebaseLinkField(
        '</events?page=1&per_page=2>; rel="first", </events?page=2&per_page=2>; rel="next"',
        'http://127.0.0.1:9000/api',
      ),
      '<http://127.0.0.1:9000/api/events?page=1&per_page=2>; rel="first", ' +
        '<http://127.0.0.1:9000/api/events?page=2&per_page=2>; rel="next"',
    )
  })

  it('leaves absolute and network-path targets alone', () => {
    const field = '<https://elsewhere.example/x>; rel="a", <//elsewhere.example/y>; rel="b"'
    assert.equal(rebaseLinkField(field, 'https://api.example.com'), field)
  })

  it('for any page, gives exactly the base plus each target the service wrote', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 100_000 }),
        safePrefix,
        (page, perPage, total, prefix) => {
          const field = pageLinkHeader({ page, perPage }, total)
          const base = `https://api.example.com${prefix}`
          const targets = (value: string) => [...value.matchAll(/<([^>]*)>/g)].map((m) => m[1])
          assert.deepEqual(
            targets(rebaseLinkField(field, base)),
            targets(field).map((path) => `${base}${path}`),
          )
          assert.ok(targets(field).every((path) => path?.startsWith(paths.events)))
        },
      ),
    )
  })
})

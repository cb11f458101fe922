// fast-check generators of hostile HTTP requests for the hostile-input suite (test/hostile): random
// methods, paths, headers and bodies an attacker could send with an ordinary HTTP client (undici).
// What no HTTP client can send (malformed request lines and framing) is in hostile-raw.ts.
//
// Every request says which credentials it carries, so the suite can check who may have changed
// anything: `editor` and `reader` are valid credentials of those users (the exact field, or a
// variant RFC 7617 still accepts), `invalid` is anything else in Authorization, `none` is none.
import fc from 'fast-check'
import { assertNoLeak } from './contract.ts'

export type Credentials = 'none' | 'invalid' | 'reader' | 'editor'

export interface HostileRequest {
  readonly method: string
  /** The request target exactly as sent (undici: starts with `/`, bytes 0x21–0xff). */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer | undefined
  readonly credentials: Credentials
}

export interface HostileWorld {
  readonly editor: { readonly user: string; readonly password: string }
  readonly reader: { readonly user: string; readonly password: string }
  /** Ids up to which events and locations exist (or existed) when the traffic starts. */
  readonly maxEventId: number
  readonly maxLocationId: number
  /** Whether valid editor credentials may appear in the traffic. */
  readonly editorCredentials: boolean
}

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64')

/** Header values undici sends: HTAB, visible ASCII, space, and 0x80–0xff (as Latin-1 bytes). */
const headerSafe = (text: string) => text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?')
/** Request-target characters undici sends: 0x21–0xff. */
const pathSafe = (text: string) => text.replace(/[^\x21-\xff]/g, '%20')

const anyText = (maxLength: number) =>
  fc
    .oneof(
      fc.string({ maxLength }),
      fc.string({ unit: 'binary', maxLength }),
      fc.string({ unit: 'grapheme', maxLength }),
    )
    .map(headerSafe)

// --- methods ------------------------------------------------------------------------------

const knownMethods = ['GET', 'HEAD', 'QUERY', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
export const methodArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...knownMethods) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'get',
      'Post',
      'TRACE',
      'PROPFIND',
      'MKCOL',
      'PURGE',
      'SEARCH',
      'LINK',
      'REPORT',
      'M-SEARCH',
      'SUBSCRIBE',
      'FOO',
      'GETS',
      'X',
    ),
  },
  // Any token (RFC 9110 §5.6.2).
  { weight: 1, arbitrary: fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,16}$/) },
)

// --- paths --------------------------------------------------------------------------------

const idSegment = (max: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: max + 3 }).map(String) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        '0',
        '-1',
        '01',
        '+1',
        '1.0',
        '1e3',
        '0x1',
        '1_0',
        '%201',
        '9007199254740991',
        '9007199254740992',
        '9007199254740993',
        '18446744073709551616',
        '99999999999999999999999999999999',
        '1e400',
        'NaN',
        'Infinity',
        'null',
        'undefined',
        '__proto__',
        'constructor',
        'prototype',
        '%31',
        '%2531',
        '1%00',
        '%00',
        '%',
        '%%',
        '%zz',
        '%c0%af',
        '%ed%a0%80',
        '%ff%fe',
        '%E2%82%AC',
        '%F0%9F%98%80',
        '%2F',
        '%5C',
        '..',
        '.',
        '%2e%2e',
        '%2e',
        '..%2F..%2Fetc%2Fpasswd',
        '\u00e9',
        '\u00ff\u00fe',
        '%D9%A1',
        ';',
        '1;x=y',
        '1,2',
        '*',
        "1'",
        '1"',
        '1%20OR%201=1',
        '$(id)',
        '{{7*7}}',
      ),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map(encodeURIComponent) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map(pathSafe) },
    // Very long segments: past Fastify's maxParamLength (1024) and past the 16 KiB header section.
    { weight: 1, arbitrary: fc.constantFrom(200, 1024, 1025, 4000, 17_000).map((n) => '1'.repeat(n)) },
    { weight: 1, arbitrary: fc.constantFrom(1025, 8000, 20_000).map((n) => 'a%2F'.repeat(n / 4)) },
  )

const queryKey = fc.oneof(
  fc.constantFrom(
    'page',
    'per_page',
    'from',
    'to',
    'q',
    'location_id',
    '__proto__',
    'constructor',
    'prototype',
    'page[]',
    'page[x]',
    '__proto__[admin]',
    'constructor[prototype][x]',
    '',
    'a.b',
    'PAGE',
  ),
  fc.string({ maxLength: 8 }).map(encodeURIComponent),
)
const queryValue = fc.oneof(
  fc.constantFrom(
    '1',
    '2',
    '0',
    '-1',
    '100',
    '101',
    '1e2',
    '1.5',
    '9007199254740993',
    '99999999999999999999',
    '',
    '%',
    '%00',
    '%ff',
    '2026-12-04T19:30:00Z',
    '2026-02-30T00:00:00Z',
    '2026-12-04T19:30:00%2B01:00',
    'party',
    '%25',
    'x'.repeat(101),
  ),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent),
  fc.string({ unit: 'binary', maxLength: 20 }).map(pathSafe),
)
const queryArb = fc
  .array(
    fc.tuple(queryKey, queryValue, fc.boolean()).map(([k, v, eq]) => (eq ? `${k}=${v}` : k)),
    { maxLength: 5 },
  )
  .chain((pairs) => fc.constantFrom('&', '&', '&', ';', '&&').map((sep) => pairs.join(sep)))

export const pathArb = (world: HostileWorld): fc.Arbitrary<string> => {
  const eventId = idSegment(world.maxEventId)
  const locationId = idSegment(world.maxLocationId)
  const junk = idSegment(1)
  const base = fc.oneof(
    { weight: 5, arbitrary: fc.constant('/events') },
    { weight: 8, arbitrary: eventId.map((id) => `/events/${id}`) },
    { weight: 4, arbitrary: locationId.map((id) => `/locations/${id}`) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '/',
        '/locations',
        '/rel/event',
        '/rel/location',
        '/rel/events',
        '/health/live',
        '/health/ready',
        '/metrics',
        '/openapi.json',
        '/events/',
        '//events',
        '/events//1',
        '/./events',
        '/events/.',
        '/events/..',
        '/events/../locations/1',
        '/events/%2e%2e/locations/1',
        '/EVENTS',
        '/Events/1',
        '/events;x=1',
        '/events#frag',
        '/events\\1',
        '/%65vents',
        '/events%2F1',
        '/\u00e9vents',
        '/node_modules',
      ),
    },
    { weight: 2, arbitrary: fc.tuple(junk, junk).map(([a, b]) => `/${a}/${b}`) },
    { weight: 1, arbitrary: fc.tuple(eventId, junk).map(([a, b]) => `/events/${a}/${b}`) },
  )
  return fc
    .tuple(base, fc.option(queryArb, { freq: 3 }), fc.boolean())
    .map(([path, query, questionMark]) =>
      query !== null ? `${path}?${query}` : questionMark ? `${path}?` : path,
    )
}

// --- headers ------------------------------------------------------------------------------

const mediaType = fc.constantFrom(
  'application/vnd.service.events+json',
  'application/vnd.service.event+json',
  'application/vnd.service.location+json',
  'application/vnd.service.api+json',
  'application/problem+json',
  'application/merge-patch+json',
  'application/json',
  'APPLICATION/JSON',
  'application/*',
  '*/*',
  '*/json',
  'text/html',
  'text/plain',
  'text/event-stream',
  'application/xml',
  'multipart/form-data',
  'application/x-www-form-urlencoded',
  'application/vnd.service.event.v2+json',
  'application/vnd.service.event',
  'application/json+vnd.service.event',
  'application',
  '/',
  '',
)
const mediaParameter = fc.oneof(
  fc.constantFrom(
    'charset=utf-8',
    'charset=UTF-8',
    'charset="utf-8"',
    'charset=latin1',
    'charset=utf-16',
    'charset=',
    'charset',
    'q=0',
    'q=0.5',
    'q=1',
    'q=1.0001',
    'q=-1',
    'q=abc',
    'q=',
    'q=0.000',
    'boundary=----x',
    'profile="x"',
    'version=2',
    '',
    ';',
    '=',
    '"unterminated',
  ),
  fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), anyText(12)).map(([k, v]) => `${k}=${v}`),
)
const mediaRange = fc
  .tuple(mediaType, fc.array(mediaParameter, { maxLength: 3 }), fc.constantFrom(';', ' ; ', ';;'))
  .map(([type, params, sep]) => [type, ...params].join(sep))
const acceptArb = fc.oneof(
  { weight: 6, arbitrary: fc.array(mediaRange, { minLength: 1, maxLength: 4 }).map((r) => r.join(', ')) },
  { weight: 1, arbitrary: anyText(40) },
  // Long lists (negotiation cost).
  {
    weight: 1,
    arbitrary: fc
      .tuple(mediaRange, fc.integer({ min: 50, max: 1500 }))
      .map(([r, n]) => Array.from({ length: n }, () => r).join(',')),
  },
)
const contentTypeArb = fc.oneof({ weight: 6, arbitrary: mediaRange }, { weight: 1, arbitrary: anyText(30) })

const etagArb = fc.oneof(
  fc.constantFrom(
    '*',
    '"v1"',
    '"v2"',
    'W/"v1"',
    '"v1", "v2"',
    '"v1" "v2"',
    '"v0"',
    '"v-1"',
    '"v01"',
    '"v9007199254740993"',
    '"v99999999999999999999"',
    '"v1',
    'v1',
    '"',
    '""',
    ',,,',
    '*, "v1"',
    'W/',
    'W/*',
    '"\u00ff"',
  ),
  fc.integer({ min: 1, max: 5 }).map((v) => `"v${v}"`),
  fc.integer({ min: 2, max: 2000 }).map((n) => Array.from({ length: n }, (_, i) => `"v${i}"`).join(',')),
  anyText(40),
)

const basicOf = (user: string, password: string) => `Basic ${b64(`${user}:${password}`)}`

/** Authorization fields with the credentials they amount to. */
export const authorizationArb = (world: HostileWorld): fc.Arbitrary<[string | undefined, Credentials]> => {
  const valid = (who: { user: string; password: string }) => b64(`${who.user}:${who.password}`)
  // RFC 7617 variants that remain the same valid credentials: the scheme is case-insensitive, and
  // the service takes several spaces after it and trailing spaces.
  const validVariants = (who: { user: string; password: string }) =>
    fc.constantFrom(
      `Basic ${valid(who)}`,
      `basic ${valid(who)}`,
      `BASIC ${valid(who)}`,
      `Basic   ${valid(who)}`,
      `Basic ${valid(who)}  `,
    )
  const { editor, reader } = world
  const invalidFixed = fc.constantFrom(
    '',
    ' ',
    'Basic',
    'Basic ',
    'Basic =',
    'Basic ====',
    'Basic !!!!',
    `Basic ${valid(editor)}=`,
    `Basic ${valid(editor)}A`,
    `Basic ${valid(editor).slice(0, -4)}`,
    `Basic\t${valid(editor)}`,
    `Basic ${valid(editor)}, Basic ${valid(editor)}`,
    `Basic ${valid(editor)} x`,
    `Basic ${b64(`${editor.user}:${editor.password} `)}`,
    `Basic ${b64(`${editor.user.toUpperCase()}:${editor.password}`)}`,
    `Basic ${b64(`${editor.user}:${editor.password}\u0000`)}`,
    `Basic ${b64(`${editor.user}\u0000:${editor.password}`)}`,
    `Basic ${b64(`${editor.user}${editor.password}`)}`,
    `Basic ${b64(`:${editor.password}`)}`,
    `Basic ${b64(Buffer.from([0xff, 0xfe, 0x3a, 0x41]))}`,
    `Basic ${b64(Buffer.concat([Buffer.from('editor:'), Buffer.from([0xc3, 0x28])]))}`,
    `Bearer ${valid(editor)}`,
    `Digest username="${editor.user}", response="x"`,
    `Signature keyId="x"`,
    `Basic ${'A'.repeat(4000)}`,
    `Basic ${b64(`${editor.user}:${'x'.repeat(3000)}`)}`,
    `${valid(editor)}`,
  )
  // Well-formed Basic for random names: each costs one Argon2id hash, so these are rare.
  const wellFormedWrong = fc
    .tuple(
      fc.oneof(fc.constantFrom(editor.user, reader.user, 'admin', 'root'), fc.string({ maxLength: 12 })),
      fc.string({ maxLength: 20 }),
    )
    .map(([u, p]) => basicOf(u, p))
    .filter(
      (field) =>
        field !== basicOf(editor.user, editor.password) && field !== basicOf(reader.user, reader.password),
    )
  const options: fc.WeightedArbitrary<[string | undefined, Credentials]>[] = [
    { weight: 14, arbitrary: fc.constant([undefined, 'none']) },
    { weight: 5, arbitrary: invalidFixed.map((f) => [f, 'invalid']) },
    { weight: 2, arbitrary: anyText(60).map((f) => [f, 'invalid']) },
    { weight: 1, arbitrary: anyText(60).map((f) => [`Basic ${f}`, 'invalid']) },
    { weight: 1, arbitrary: wellFormedWrong.map((f) => [f, 'invalid']) },
    { weight: 2, arbitrary: validVariants(reader).map((f) => [f, 'reader']) },
  ]
  if (world.editorCredentials)
    options.push({ weight: 10, arbitrary: validVariants(editor).map((f) => [f, 'editor']) })
  // A garbage field of a scheme the parser rejects at once must never look like valid credentials.
  return fc.oneof(...options).filter(([f, c]) => c !== 'invalid' || f === undefined || !isValidFor(f, world))
}

function isValidFor(field: string, world: HostileWorld): boolean {
  const m = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(field.trim())
  if (!m?.[1] || m[1].length % 4 !== 0) return false
  const decoded = Buffer.from(m[1], 'base64').toString('utf8')
  return [world.editor, world.reader].some((who) => decoded === `${who.user}:${who.password}`)
}

const signatureInputArb = fc.oneof(
  fc.constantFrom(
    'sig1=("@method" "@authority" "@path" "@query");created=1795445967;keyid="k_nope";nonce="2LcyX-QN-0uskoaZ2zxHww";tag="ers-v1"',
    'sig1=("@method" "@authority" "@path" "@query" "content-type" "content-digest");created=1;keyid="k_x";nonce="AAAAAAAAAAAAAAAAAAAAAA";tag="ers-v1";alg="hmac-sha256"',
    'sig1=("@method");created=99999999999999999999;keyid="";nonce="";tag="ers-v1"',
    'sig1=();tag="ers-v1"',
    'sig1=("@method" "@authority" "@path" "@query");created=1;keyid="a";nonce="b";tag="ers-v1", sig2=("@method")',
    'sig1=',
    '=',
    '(',
    'sig1=("@method" "@authority" "@path" "@query");created=1;keyid="k";nonce="n";tag="ers-v1";alg="rsa-pss-sha512"',
    'sig1=("\\u0000")',
  ),
  fc
    .tuple(fc.integer(), fc.string({ maxLength: 20 }), fc.string({ maxLength: 30 }))
    .map(
      ([created, keyid, nonce]) =>
        `sig1=("@method" "@authority" "@path" "@query");created=${created};keyid="${keyid}";nonce="${nonce}";tag="ers-v1"`,
    )
    .map(headerSafe),
  anyText(80),
)
const signatureArb = fc.oneof(
  fc.constantFrom('sig1=:AAAA:', 'sig1=:', 'sig1=::', 'sig1=:!!!!:', 'sig1=:AAAA:, sig2=:BBBB:', 'sig1="x"'),
  fc.uint8Array({ maxLength: 48 }).map((bytes) => `sig1=:${Buffer.from(bytes).toString('base64')}:`),
  anyText(60),
)
const contentDigestArb = fc.oneof(
  fc.constantFrom(
    'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:',
    'sha-512=:AAAA:',
    'sha-256=x',
    '',
  ),
  anyText(40),
)

const forwardedFor = fc.oneof(
  fc.constantFrom(
    '1.2.3.4',
    '::1',
    '127.0.0.1, 10.0.0.1',
    '999.999.999.999',
    'unknown',
    '[::1]:80',
    '1.2.3.4, , ,',
    'fe80::1%eth0',
    '2001:db8::/32',
  ),
  anyText(40),
)
const forwardedHost = fc.oneof(
  fc.constantFrom(
    'evil.example',
    'evil.example:8443',
    'evil.example/path',
    'evil.example:99999',
    'a..b',
    '[::1]:80',
    'user@host',
    'x, y',
    '',
  ),
  anyText(40),
)
const forwardedPrefix = fc.oneof(
  fc.constantFrom(
    '/api',
    '/api/',
    '/../..',
    '/%2e%2e',
    '/a%2Fb',
    'api',
    '//evil.example',
    '/a\u00ff',
    '/\t',
    '/a?b',
    '/a#b',
  ),
  anyText(40),
)
const forwardedProto = fc.oneof(
  fc.constantFrom('http', 'https', 'HTTPS', 'javascript', 'ftp', 'https, http', ''),
  anyText(10),
)
const requestIdArb = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
  fc.constantFrom(
    '',
    ' ',
    'a b',
    'x'.repeat(129),
    'x'.repeat(128),
    '<script>',
    '../../etc/passwd',
    'id\u00ff',
  ),
  anyText(40),
)
const originArb = fc.oneof(
  fc.constantFrom(
    'https://app.example',
    'https://evil.example',
    'null',
    'https://app.example.evil',
    'file://',
    '',
  ),
  anyText(30),
)

const extraHeaderName = fc.oneof(
  fc.constantFrom(
    'Cookie',
    'Range',
    'If-Modified-Since',
    'If-Unmodified-Since',
    'If-Range',
    'Last-Event-ID',
    'Prefer',
    'Access-Control-Request-Method',
    'Access-Control-Request-Headers',
    'Content-Encoding',
    'Accept-Encoding',
    'Accept-Charset',
    'Accept-Language',
    'TE',
    'Forwarded',
    'X-HTTP-Method-Override',
    'X-Original-URL',
    'X-Rewrite-URL',
    'Max-Forwards',
    'Via',
    'Referer',
    'User-Agent',
    'Idempotency-Key',
  ),
  fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}$/),
)
const extraHeaderValue = fc.oneof(
  fc.constantFrom(
    'DELETE',
    'gzip',
    'bytes=0-0',
    'bytes=-1',
    'Thu, 01 Jan 1970 00:00:00 GMT',
    'not a date',
    '0',
    '-1',
    '99999999999999999999',
    'x'.repeat(4000),
  ),
  anyText(40),
)

// Headers undici refuses or owns (framing); the raw suite sends them.
const reserved = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
])

/** The arbitrary's value in about one case of `oneIn`, else undefined (the header is left out). */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary })

const goodAccept = fc.constantFrom(
  'application/vnd.service.events+json',
  'application/vnd.service.event+json',
  'application/vnd.service.location+json',
  'application/json',
  '*/*',
)
const goodContentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/vnd.service.event+json',
  'application/vnd.service.events+json',
  'application/merge-patch+json',
)

export const headersArb = (world: HostileWorld): fc.Arbitrary<[Record<string, string>, Credentials]> =>
  fc
    .tuple(
      fc.record({
        accept: fc.oneof(
          { weight: 3, arbitrary: fc.constant(undefined) },
          { weight: 2, arbitrary: goodAccept },
          { weight: 2, arbitrary: acceptArb },
        ),
        'content-type': fc.oneof(
          { weight: 1, arbitrary: fc.constant(undefined) },
          { weight: 5, arbitrary: goodContentType },
          { weight: 3, arbitrary: contentTypeArb },
        ),
        'if-match': sometimes(etagArb, 6),
        'if-none-match': sometimes(etagArb, 6),
        'signature-input': sometimes(signatureInputArb, 10),
        signature: sometimes(signatureArb, 10),
        'content-digest': sometimes(contentDigestArb, 10),
        'x-forwarded-for': sometimes(forwardedFor, 6),
        'x-forwarded-host': sometimes(forwardedHost, 6),
        'x-forwarded-proto': sometimes(forwardedProto, 6),
        'x-forwarded-prefix': sometimes(forwardedPrefix, 6),
        'x-request-id': sometimes(requestIdArb, 4),
        origin: sometimes(originArb, 8),
        'idempotency-key': sometimes(fc.oneof(fc.uuid(), anyText(300)), 6),
      }),
      authorizationArb(world),
      fc.array(fc.tuple(extraHeaderName, extraHeaderValue), { maxLength: 2 }),
      sometimes(fc.integer({ min: 100, max: 400 }), 40),
    )
    .map(([fields, [authorization, credentials], extras, many]) => {
      const headers: Record<string, string> = {}
      for (const [name, value] of extras) {
        if (!reserved.has(name.toLowerCase())) headers[name.toLowerCase()] = value
      }
      // Absurd header counts (each small, so most stay under the 16 KiB limit).
      if (many !== undefined) for (let i = 0; i < many; i++) headers[`x-h${i}`] = String(i)
      for (const [name, value] of Object.entries(fields)) if (value !== undefined) headers[name] = value
      if (authorization !== undefined) headers.authorization = authorization
      return [headers, credentials]
    })

// --- bodies -------------------------------------------------------------------------------

const dateArb = fc.oneof(
  fc.constantFrom(
    '2026-12-04T19:30:00Z',
    '2026-12-05T20:00:00+01:00',
    '2026-12-04T19:30:00.123Z',
    '2026-02-30T00:00:00Z',
    '2026-12-04 19:30:00Z',
    '2026-12-04T19:30:60Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '+275760-09-13T00:00:00Z',
    '2026-12-04T19:30:00',
    '2026-12-04T19:30:00+2400',
    '2026-12-04T19:30:00.1234567Z',
    '',
    'now',
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.string({ maxLength: 70 }),
)
/** Titles that hold no text the leak checks look for (titles come back in representations). */
const titleArb = fc.oneof(
  fc.constantFrom(
    'Hostile party',
    ' ',
    '',
    '\t\n',
    'x'.repeat(200),
    'x'.repeat(201),
    '\u0000',
    'a\u0000b',
    '\ud800',
    'a\udfffb',
    '\uFEFF',
    '\u202e\u0645\u0631\u062d\u0628\u0627',
    '\u{1F600}'.repeat(100),
    '\u{1F600}'.repeat(101),
    "x' OR '1'='1",
    '<script>alert(1)</script>',
    '\\',
    '"',
    '\r\n\r\nHTTP/1.1 200 OK',
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
)
const idValueArb = (max: number) =>
  fc.oneof(
    fc.integer({ min: 1, max: max + 2 }),
    fc.constantFrom(0, -1, 1.5, 2 ** 53, 2 ** 53 + 2, 1e308, -0, '1', true, null, [1], { id: 1 }),
  )
/** Numbers JSON can spell but JavaScript cannot hold exactly. */
const hugeNumberText = fc.constantFrom(
  '1e400',
  '-1e400',
  '1e-400',
  '9007199254740993',
  '123456789012345678901234567890',
  '1'.repeat(400),
  '0.0000000000000000000000001',
  '-0',
  '1E+2',
  '01',
  '.5',
  '1.',
  'NaN',
  'Infinity',
)

const eventBodyArb = (world: HostileWorld) =>
  fc.record(
    {
      title: titleArb,
      date: dateArb,
      location_id: idValueArb(world.maxLocationId),
      id: idValueArb(world.maxEventId),
      links: fc.constantFrom([], [{ uri: '/events/1', rel: 'self', type: 'x' }], 'x', null),
    },
    { requiredKeys: [] },
  )

const jsonTextArb = (world: HostileWorld) =>
  fc.oneof(
    { weight: 6, arbitrary: eventBodyArb(world).map((v) => JSON.stringify(v)) },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    {
      weight: 2,
      arbitrary: fc
        .record(
          { page: idValueArb(40), per_page: idValueArb(120), q: titleArb, from: dateArb, to: dateArb },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
    },
    // A huge number in place of a field's value.
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('location_id', 'id', 'page', 'per_page', 'title', 'date'), hugeNumberText)
        .map(([k, n]) => `{"title":"Huge","date":"2026-12-04T19:30:00Z","location_id":1,"${k}":${n}}`),
    },
    // Prototype-poisoning keys, at the top and nested.
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '{"__proto__":{"admin":true}}',
        '{"title":"x","date":"2026-12-04T19:30:00Z","location_id":1,"__proto__":{"role":"editor"}}',
        '{"constructor":{"prototype":{"admin":true}}}',
        '{"title":"x","date":"2026-12-04T19:30:00Z","links":[{"__proto__":{"x":1}}]}',
        '{"title":"x","date":"2026-12-04T19:30:00Z","links":{"constructor":{"prototype":{}}}}',
        '{"prototype":{}}',
        '{"page":1,"__proto__":{"per_page":1000}}',
        '{"\\u005f_proto__":{}}',
        '{"constructor":1}',
        '{"toString":1,"valueOf":2,"hasOwnProperty":3}',
      ),
    },
    // Duplicate keys: the last one counts, as for JSON.parse.
    {
      weight: 1,
      arbitrary: fc
        .tuple(titleArb, titleArb)
        .map(
          ([a, b]) =>
            `{"title":${JSON.stringify(a)},"title":${JSON.stringify(b)},"date":"2026-12-04T19:30:00Z","location_id":1}`,
        ),
    },
    // NUL, escaped and raw.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"title":"a\\u0000b","date":"2026-12-04T19:30:00Z","location_id":1}',
        '{"title":"a\u0000b","date":"2026-12-04T19:30:00Z","location_id":1}',
        '{"title\\u0000":"x"}',
        '\u0000',
        '{}\u0000',
        '{"q":"\\u0000"}',
      ),
    },
    // Deep nesting.
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(10, 100, 1000, 5000, 8000), fc.boolean())
        .map(([n, arrays]) =>
          arrays
            ? `${'['.repeat(n)}${']'.repeat(n)}`
            : `${'{"a":'.repeat(Math.min(n, 2700))}1${'}'.repeat(Math.min(n, 2700))}`,
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(10, 1000, 5000).map((n) => `{"title":${'['.repeat(n)}${']'.repeat(n)}}`),
    },
  )

/** Breaks JSON text: a cut, an inserted or replaced character, or a stray suffix. */
const mangle = (text: string) =>
  fc.oneof(
    fc.nat({ max: Math.max(0, text.length) }).map((i) => text.slice(0, i)),
    fc
      .tuple(
        fc.nat({ max: text.length }),
        fc.constantFrom('"', '{', '}', ',', ':', '\\', '\u0000', 'x', ']', "'", '\n'),
      )
      .map(([i, c]) => text.slice(0, i) + c + text.slice(i)),
    fc.nat({ max: Math.max(0, text.length - 1) }).map((i) => text.slice(0, i) + text.slice(i + 1)),
    fc.constantFrom(',', '}', '{}', ' x', '\u0000', '//', '/* */').map((s) => text + s),
  )

const malformedArb = fc.constantFrom(
  '{"title": ',
  '{title: "x"}',
  "{'title':'x'}",
  '{"a":1,}',
  '[1,]',
  'nul',
  'tru',
  '{"a":1}{"b":2}',
  '{"a" 1}',
  '"unterminated',
  '{"a":"\\x41"}',
  '{"a":"\\ud800"}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":+1}',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":undefined}',
  '\ufeff{}',
  '\ufeff\ufeff{}',
  '<xml/>',
  'page=1&per_page=2',
  '--boundary\r\nContent-Disposition: form-data\r\n\r\nx\r\n--boundary--',
)

const invalidUtf8 = fc.constantFrom(
  [0xff],
  [0xfe, 0xff],
  [0xc3, 0x28],
  [0xa0, 0xa1],
  [0xe2, 0x28, 0xa1],
  [0xe2, 0x82, 0x28],
  [0xf0, 0x28, 0x8c, 0xbc],
  [0xf8, 0xa1, 0xa1, 0xa1, 0xa1],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc3],
)

const boms = fc.constantFrom(
  [0xef, 0xbb, 0xbf],
  [0xfe, 0xff],
  [0xff, 0xfe],
  [0xff, 0xfe, 0x00, 0x00],
  [0xef, 0xbb],
)

export const bodyArb = (world: HostileWorld): fc.Arbitrary<Buffer | undefined> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '\r\n\t', '\u00a0').map((s) => Buffer.from(s)) },
    { weight: 10, arbitrary: jsonTextArb(world).map((s) => Buffer.from(s)) },
    {
      weight: 3,
      arbitrary: jsonTextArb(world)
        .chain(mangle)
        .map((s) => Buffer.from(s)),
    },
    { weight: 2, arbitrary: malformedArb.map((s) => Buffer.from(s)) },
    // Invalid UTF-8 inside otherwise good JSON.
    {
      weight: 2,
      arbitrary: fc.tuple(jsonTextArb(world), invalidUtf8, fc.nat()).map(([text, bad, at]) => {
        const bytes = Buffer.from(text)
        const i = bytes.length === 0 ? 0 : at % bytes.length
        return Buffer.concat([bytes.subarray(0, i), Buffer.from(bad), bytes.subarray(i)])
      }),
    },
    // Byte order marks before JSON; UTF-16 text.
    {
      weight: 1,
      arbitrary: fc
        .tuple(boms, jsonTextArb(world))
        .map(([bom, text]) => Buffer.concat([Buffer.from(bom), Buffer.from(text)])),
    },
    { weight: 1, arbitrary: jsonTextArb(world).map((text) => Buffer.from(text, 'utf16le')) },
    // Random bytes.
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)) },
    // Around and past the 16 KiB body limit (and far past it).
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(16_000, 16_384 - 56, 16_384 - 55, 16_384, 16_385, 40_000, 1_048_576)
        .map((n) =>
          Buffer.from(`{"title":"${'x'.repeat(Math.max(0, n - 56))}","date":"2026-12-04T19:30:00Z"}`),
        ),
    },
  )

// --- whole requests -----------------------------------------------------------------------

/** Would a leak check fire on this request's own text when echoed back? Such requests are skipped. */
export function echoesLeakPattern(request: HostileRequest): boolean {
  let path = request.path
  try {
    path = `${path} ${decodeURIComponent(path)}`
  } catch {}
  let body = ''
  if (request.body) {
    body = request.body.toString('utf8')
    try {
      body += JSON.stringify(JSON.parse(body))
    } catch {}
  }
  const text = [request.method, path, ...Object.entries(request.headers).flat(), body].join('\n')
  try {
    assertNoLeak(text, 'request')
    return false
  } catch {
    return true
  }
}

/**
 * Writes an editor could mean: good credentials, type and path, and a body of plausible fields
 * (some of them bad), now and then with If-Match, an Idempotency-Key from a small set (so that
 * retries happen) or a mangled body. These make changes, which the suite follows.
 */
const plausibleWriteArb = (world: HostileWorld): fc.Arbitrary<HostileRequest> => {
  const { editor } = world
  const valid = `Basic ${b64(`${editor.user}:${editor.password}`)}`
  const fields = fc.record(
    {
      title: fc.oneof(
        { weight: 5, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ]{0,29}$/) },
        { weight: 1, arbitrary: titleArb },
      ),
      date: fc.oneof(
        {
          weight: 5,
          arbitrary: fc
            .date({
              min: new Date('1970-01-01T00:00:00Z'),
              max: new Date('2100-01-01T00:00:00Z'),
              noInvalidDate: true,
            })
            .map((d) => d.toISOString().replace('.000Z', 'Z')),
        },
        { weight: 1, arbitrary: dateArb },
      ),
      location_id: fc.oneof(
        { weight: 5, arbitrary: fc.integer({ min: 1, max: world.maxLocationId }) },
        { weight: 1, arbitrary: idValueArb(world.maxLocationId) },
      ),
      id: fc.integer({ min: 1, max: world.maxEventId }),
    },
    { requiredKeys: ['title', 'date'] },
  )
  return fc
    .tuple(
      fc.constantFrom('POST', 'PUT', 'PATCH', 'PATCH', 'DELETE'),
      fc.integer({ min: 1, max: world.maxEventId }),
      fields,
      fc.constantFrom(valid, `basic ${valid.slice(6)}`),
      sometimes(fc.oneof(fc.constantFrom('*', '"v1"', '"v2"', '"v3"', 'W/"v1"', '"v1", "v2"')), 4),
      sometimes(fc.constantFrom('*', '"v1"', '"v2"'), 10),
      sometimes(fc.constantFrom('retry-1', 'retry-2', 'retry-3'), 4),
      sometimes(fc.constantFrom('mangle', 'utf8', 'proto', 'extra'), 6),
    )
    .map(([method, id, body, authorization, ifMatch, ifNoneMatch, key, damage]) => {
      const { id: bodyId, ...rest } = body
      const value: Record<string, unknown> =
        method === 'POST'
          ? { location_id: 1, ...rest }
          : method === 'PUT'
            ? { ...rest, ...(id % 3 === 0 && { id: bodyId }) }
            : rest
      if (method === 'PATCH' && id % 2 === 0) delete value.date
      let text = JSON.stringify(value)
      if (damage === 'mangle') text = text.slice(0, text.length - 1 - (id % 5))
      if (damage === 'proto') text = `${text.slice(0, -1)},"__proto__":{"x":1}}`
      if (damage === 'extra') text = `${text.slice(0, -1)},"role":"admin"}`
      let bytes = Buffer.from(text)
      if (damage === 'utf8')
        bytes = Buffer.concat([bytes.subarray(0, 10), Buffer.from([0xc3, 0x28]), bytes.subarray(10)])
      const headers: Record<string, string> = {
        authorization,
        'content-type':
          method === 'PATCH'
            ? 'application/merge-patch+json'
            : id % 2
              ? 'application/json'
              : 'application/vnd.service.event+json',
        ...(ifMatch !== undefined && { 'if-match': ifMatch }),
        ...(ifNoneMatch !== undefined && { 'if-none-match': ifNoneMatch }),
        ...(key !== undefined && method === 'POST' && { 'idempotency-key': key }),
      }
      return {
        method,
        path: method === 'POST' ? '/events' : `/events/${id}`,
        headers:
          method === 'DELETE'
            ? { authorization, ...(ifMatch !== undefined && { 'if-match': ifMatch }) }
            : headers,
        body: method === 'DELETE' ? undefined : bytes,
        credentials: 'editor' as const,
      }
    })
    .filter((r) => !echoesLeakPattern(r))
}

/**
 * Location writes an editor could mean: name and address (some of them blank, long or missing),
 * now and then with If-Match or an extra field, to existing ids, ids just past them (locations
 * the batch creates, which no event refers to, so some deletes succeed) and the collection.
 */
const plausibleLocationWriteArb = (world: HostileWorld): fc.Arbitrary<HostileRequest> => {
  const valid = `Basic ${b64(`${world.editor.user}:${world.editor.password}`)}`
  const text = (max: number) =>
    fc.oneof(
      { weight: 5, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ]{0,29}$/) },
      { weight: 1, arbitrary: fc.constantFrom('', '   ', 'x'.repeat(max + 1), 'x'.repeat(max)) },
      { weight: 1, arbitrary: titleArb },
    )
  return fc
    .tuple(
      fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'DELETE'),
      fc.integer({ min: 1, max: world.maxLocationId + 6 }),
      fc.record({ name: text(200), address: text(300) }, { requiredKeys: [] }),
      sometimes(fc.constantFrom('*', '"v1"', '"v2"', 'W/"v1"'), 4),
      sometimes(fc.constantFrom('extra', 'id'), 6),
    )
    .map(([method, id, fields, ifMatch, damage]) => {
      const value: Record<string, unknown> = { ...fields }
      if (damage === 'extra') value.capacity = 10
      if (damage === 'id') value.id = id
      const headers: Record<string, string> = {
        authorization: valid,
        ...(method !== 'DELETE' && {
          'content-type':
            method === 'PATCH'
              ? 'application/merge-patch+json'
              : id % 2
                ? 'application/json'
                : 'application/vnd.service.location+json',
        }),
        ...(ifMatch !== undefined && { 'if-match': ifMatch }),
      }
      return {
        method,
        path: method === 'POST' ? '/locations' : `/locations/${id}`,
        headers,
        body: method === 'DELETE' ? undefined : Buffer.from(JSON.stringify(value)),
        credentials: 'editor' as const,
      }
    })
    .filter((r) => !echoesLeakPattern(r))
}

export const requestArb = (world: HostileWorld): fc.Arbitrary<HostileRequest> =>
  world.editorCredentials
    ? fc.oneof(
        { weight: 3, arbitrary: hostileRequestArb(world) },
        { weight: 2, arbitrary: plausibleWriteArb(world) },
        { weight: 1, arbitrary: plausibleLocationWriteArb(world) },
      )
    : hostileRequestArb(world)

const hostileRequestArb = (world: HostileWorld): fc.Arbitrary<HostileRequest> =>
  fc
    .tuple(methodArb, pathArb(world), headersArb(world), bodyArb(world))
    .map(([method, path, [headers, credentials], body]) => {
      const withBody: Record<string, string> = { ...headers }
      // A Content-Type without a body stays out, mostly (it means nothing then).
      if (body === undefined && path.length % 3 !== 0) delete withBody['content-type']
      return { method, path, headers: withBody, body, credentials }
    })
    .filter((r) => !echoesLeakPattern(r))

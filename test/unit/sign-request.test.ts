// The signature base and HMAC of RFC 9421, checked against the RFC's own test vector (Appendix
// B.2.5), and the signing helper (packages/client/src/sign-request.ts) against bases written out by hand.
import assert from 'node:assert/strict'
import { createHash, createHmac } from 'node:crypto'
import { describe, it } from 'node:test'
import {
  serializeSignatureParams,
  signatureBase,
} from '../../packages/client/src/contract/signature-profile.ts'
import { contentDigest, hmacSha256, signRequest } from '../../packages/client/src/sign-request.ts'

describe('signature base (RFC 9421 §2.5)', () => {
  it('reproduces the hmac-sha256 test vector of RFC 9421 Appendix B.2.5', () => {
    // B.1.5: the shared secret `test-shared-secret`, base64.
    const key = Buffer.from(
      'uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ==',
      'base64',
    )
    const params = serializeSignatureParams(
      ['date', '@authority', 'content-type'],
      [
        ['created', 1618884473],
        ['keyid', 'test-shared-secret'],
      ],
    )
    const base = signatureBase(
      [
        { name: 'date', value: 'Tue, 20 Apr 2021 02:07:55 GMT' },
        { name: '@authority', value: 'example.com' },
        { name: 'content-type', value: 'application/json' },
      ],
      params,
    )
    // B.2.5's signature base, line by line.
    assert.equal(
      base,
      '"date": Tue, 20 Apr 2021 02:07:55 GMT\n' +
        '"@authority": example.com\n' +
        '"content-type": application/json\n' +
        '"@signature-params": ("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"',
    )
    assert.equal(hmacSha256(key, base), 'pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=')
  })

  it('escapes backslash and double quote in strings (RFC 8941 §4.1.6) and refuses non-ASCII', () => {
    assert.equal(serializeSignatureParams(['a'], [['keyid', 'x"y\\z']]), '("a");keyid="x\\"y\\\\z"')
    assert.throws(() => serializeSignatureParams(['a'], [['keyid', 'é']]), RangeError)
  })
})

describe('signRequest (profile ers-v2)', () => {
  const secret = 'c2VjcmV0LW9mLXRoZS10ZXN0LWtleS0xMjM0NTY3ODk'
  const hmac = (base: string) =>
    createHmac('sha256', Buffer.from(secret, 'ascii')).update(base).digest('base64')

  it('signs a request without a body over method, authority, path and a lone "?"', () => {
    const fields = signRequest({
      method: 'DELETE',
      url: 'http://Example.COM:80/events/7',
      keyId: 'k_AAAAAAAAAAAAAAAA',
      secret,
      created: 1700000000,
      nonce: 'bm9uY2Utbm9uY2Utbm9uY2U',
    })
    const params =
      '("@method" "@authority" "@path" "@query");created=1700000000;keyid="k_AAAAAAAAAAAAAAAA"' +
      ';nonce="bm9uY2Utbm9uY2Utbm9uY2U";tag="ers-v2";alg="hmac-sha256"'
    // The host lower-cased and the default port left out (RFC 9110 §4.2.3).
    const base = `"@method": DELETE\n"@authority": example.com\n"@path": /events/7\n"@query": ?\n"@signature-params": ${params}`
    assert.deepEqual(fields, { 'signature-input': `sig1=${params}`, signature: `sig1=:${hmac(base)}:` })
  })

  it('signs a request with a body over Content-Type and the RFC 9530 Content-Digest of its exact bytes', () => {
    const body = '{"title":"Release party"}'
    const fields = signRequest({
      method: 'POST',
      url: 'http://127.0.0.1:8080/events?x=%41',
      headers: { 'Content-Type': 'application/json' },
      body,
      keyId: 'k_AAAAAAAAAAAAAAAA',
      secret,
      created: 1700000000,
      nonce: 'bm9uY2Utbm9uY2Utbm9uY2U',
      label: 'req',
      withAlg: false,
    })
    const expectedDigest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`
    assert.equal(fields['content-digest'], expectedDigest)
    const params =
      '("@method" "@authority" "@path" "@query" "content-type" "content-digest");created=1700000000' +
      ';keyid="k_AAAAAAAAAAAAAAAA";nonce="bm9uY2Utbm9uY2Utbm9uY2U";tag="ers-v2"'
    const base =
      '"@method": POST\n"@authority": 127.0.0.1:8080\n"@path": /events\n"@query": ?x=%41\n' +
      `"content-type": application/json\n"content-digest": ${expectedDigest}\n"@signature-params": ${params}`
    assert.equal(fields['signature-input'], `req=${params}`)
    assert.equal(fields.signature, `req=:${hmac(base)}:`)
  })

  it('covers If-Match, If-None-Match and Idempotency-Key it is given, after the others and in that order', () => {
    const body = '{"title":"Release party","date":"2026-12-04T19:30:00Z"}'
    const fields = signRequest({
      method: 'PUT',
      url: 'http://127.0.0.1:8080/events/7',
      // Given in another order and case: signed in the profile's, lower-cased, values trimmed.
      headers: {
        'Idempotency-Key': 'abc',
        'If-Match': ' "v1" ',
        'content-type': 'application/json',
        'if-none-match': '*',
      },
      body,
      keyId: 'k_AAAAAAAAAAAAAAAA',
      secret,
      created: 1700000000,
      nonce: 'bm9uY2Utbm9uY2Utbm9uY2U',
    })
    const digest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`
    const params =
      '("@method" "@authority" "@path" "@query" "content-type" "content-digest" "if-match" "if-none-match" "idempotency-key")' +
      ';created=1700000000;keyid="k_AAAAAAAAAAAAAAAA";nonce="bm9uY2Utbm9uY2Utbm9uY2U";tag="ers-v2";alg="hmac-sha256"'
    const base =
      '"@method": PUT\n"@authority": 127.0.0.1:8080\n"@path": /events/7\n"@query": ?\n' +
      `"content-type": application/json\n"content-digest": ${digest}\n` +
      `"if-match": "v1"\n"if-none-match": *\n"idempotency-key": abc\n"@signature-params": ${params}`
    assert.equal(fields['signature-input'], `sig1=${params}`)
    assert.equal(fields.signature, `sig1=:${hmac(base)}:`)
  })

  it('gives the RFC 9530 digest of known bytes', () => {
    // sha-256 of the empty string, from FIPS 180-2's examples as RFC 9530 §B.1 writes them.
    assert.equal(contentDigest(''), 'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:')
  })

  it('makes a new 128-bit nonce for every request', () => {
    const nonces = new Set(
      Array.from({ length: 50 }, () => {
        const input = signRequest({ method: 'DELETE', url: 'http://h/e', keyId: 'k', secret })[
          'signature-input'
        ]
        return /;nonce="([^"]+)"/.exec(input)?.[1]
      }),
    )
    assert.equal(nonces.size, 50)
    for (const nonce of nonces) assert.match(nonce ?? '', /^[A-Za-z0-9_-]{22}$/)
  })
})

import assert from 'node:assert/strict'
import { createHmac, randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import {
  keyIdSyntax,
  newKeyId,
  newKeySecret,
  openSecret,
  openSigningKey,
  sealSecret,
} from '../../src/auth/api-key-secrets.ts'

describe('API key secrets', () => {
  it('are 43 base64url characters that never begin with a dash', () => {
    // One in 64 random secrets would begin with `-`; 10,000 draws miss that with odds of e^-156.
    for (let i = 0; i < 10_000; i++) {
      const secret = newKeySecret()
      assert.match(secret, /^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/)
    }
  })

  it('key ids match the syntax that names a key', () => {
    assert.match(newKeyId(), keyIdSyntax)
  })

  it('open sealed under the same key and key id only', () => {
    const key = randomBytes(32)
    const secret = newKeySecret()
    const sealed = sealSecret(secret, 'k_AAAAAAAAAAAAAAAA', key)
    assert.equal(openSecret(sealed, 'k_AAAAAAAAAAAAAAAA', key), secret)
    assert.equal(openSecret(sealed, 'k_BBBBBBBBBBBBBBBB', key), undefined)
    assert.equal(openSecret(sealed, 'k_AAAAAAAAAAAAAAAA', randomBytes(32)), undefined)
  })
  it("open as an HMAC key of the secret's ASCII bytes, under the same key and key id only", () => {
    const key = randomBytes(32)
    const secret = newKeySecret()
    const sealed = sealSecret(secret, 'k_AAAAAAAAAAAAAAAA', key)
    const signingKey = openSigningKey(sealed, 'k_AAAAAAAAAAAAAAAA', key)
    assert.ok(signingKey)
    assert.deepEqual(
      createHmac('sha256', signingKey).update('base').digest(),
      createHmac('sha256', Buffer.from(secret, 'latin1')).update('base').digest(),
    )
    assert.equal(openSigningKey(sealed, 'k_BBBBBBBBBBBBBBBB', key), undefined)
    assert.equal(openSigningKey(sealed, 'k_AAAAAAAAAAAAAAAA', randomBytes(32)), undefined)
    assert.equal(openSigningKey(`${sealed.slice(0, -2)}AA`, 'k_AAAAAAAAAAAAAAAA', key), undefined)
  })
})

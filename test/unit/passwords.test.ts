import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { defaultHashCost } from '../../src/auth/hash-cost.ts'
import { costOf, dummyHash, hashPassword, needsRehash, verifyPassword } from '../../src/auth/passwords.ts'
import { passwordPolicy, passwordProblem } from '../../src/domain/password-policy.ts'

// Argon2id at OWASP's costs takes tens of milliseconds per hash: hash twice and reuse.
const password = 'correct horse battery staple'
let first: string
let second: string

before(async () => {
  ;[first, second] = await Promise.all([hashPassword(password), hashPassword(password)])
})

const phc = /^\$argon2id\$v=19\$m=7168,t=5,p=1\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

describe('hashPassword', () => {
  it("produces an Argon2id PHC string with m=7168, t=5, p=1 (OWASP's configuration with the least memory)", () => {
    assert.match(first, phc)
  })

  it('never contains the password', () => {
    assert.ok(!first.includes(password))
    assert.ok(!first.includes(Buffer.from(password).toString('base64').replace(/=+$/, '')))
  })

  it('salts: two hashes of the same password differ, in salt and in hash', () => {
    assert.notEqual(first, second)
    const [, saltA, hashA] = phc.exec(first) ?? []
    const [, saltB, hashB] = phc.exec(second) ?? []
    assert.ok(saltA && saltB && hashA && hashB)
    assert.notEqual(saltA, saltB)
    assert.notEqual(hashA, hashB)
    // At least 128 bits of salt (22 base64 characters without padding).
    assert.ok(saltA.length >= 22, saltA)
  })
})

describe('verifyPassword', () => {
  it('is true for the password that was hashed, against either salted hash', async () => {
    assert.equal(await verifyPassword(first, password), true)
    assert.equal(await verifyPassword(second, password), true)
  })

  it('is false for any other password', async () => {
    const others = ['correct horse battery stapl', 'Correct horse battery staple', `${password} `, '', 'x']
    const results = await Promise.all(others.map((other) => verifyPassword(first, other)))
    assert.deepEqual(
      results,
      others.map(() => false),
    )
  })

  it('is false, without throwing, for a stored value that is not a PHC hash', async () => {
    const garbage = [
      '',
      'not a hash',
      password,
      '$argon2id$v=19$m=19456,t=2,p=1$',
      '$2b$10$abcdefghijklmnopqrstuv',
      first.slice(0, -4),
    ]
    const results = await Promise.all(garbage.map((hash) => verifyPassword(hash, password)))
    assert.deepEqual(
      results,
      garbage.map(() => false),
    )
  })

  it('is false for a hash whose digest was tampered with', async () => {
    const last = first.at(-1) === 'A' ? 'B' : 'A'
    assert.equal(await verifyPassword(`${first.slice(0, -1)}${last}`, password), false)
  })
})

describe('dummyHash', () => {
  it('is one Argon2id hash, computed once and reused', async () => {
    const [a, b] = await Promise.all([dummyHash(), dummyHash()])
    assert.equal(a, b)
    assert.equal(await dummyHash(), a)
    assert.match(a, phc)
  })
})

describe('the cost recorded in a hash', () => {
  const configured = { passwordHashMemoryKib: 19_456, passwordHashTimeCost: 3 }

  it('is the configured cost for new hashes, and such a hash verifies', async () => {
    const strong = await hashPassword(password, configured)
    assert.match(strong, /^\$argon2id\$v=19\$m=19456,t=3,p=1\$/)
    assert.deepEqual(costOf(strong), configured)
    assert.equal(await verifyPassword(strong, password), true)
  })

  it('reads m and t from an Argon2id PHC string, and nothing from anything else', () => {
    assert.deepEqual(costOf(first), { passwordHashMemoryKib: 7_168, passwordHashTimeCost: 5 })
    assert.equal(costOf('$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA'), undefined)
    assert.equal(costOf('$2b$10$abcdefghijklmnopqrstuv'), undefined)
    assert.equal(costOf(''), undefined)
  })

  it('needs a rehash when weaker than configured in memory or passes, never when stronger', () => {
    const phc = (m: number, t: number) => `$argon2id$v=19$m=${m},t=${t},p=1$c2FsdHNhbHQ$aGFzaA`
    assert.equal(needsRehash(phc(19_456, 2), configured), true)
    assert.equal(needsRehash(phc(9_216, 4), configured), true)
    assert.equal(needsRehash(phc(19_456, 3), configured), false)
    assert.equal(needsRehash(phc(65_536, 3), configured), false)
    assert.equal(needsRehash(phc(65_536, 5), configured), false, 'a stronger hash is never weakened')
    assert.equal(needsRehash('$argon2i$v=19$m=19456,t=3,p=1$c2FsdHNhbHQ$aGFzaA', configured), true)
  })

  it("upgrades a hash of OWASP's 19 MiB configuration (the default until 2026-11-27) to the default's 7 MiB", () => {
    const phc = (m: number, t: number) => `$argon2id$v=19$m=${m},t=${t},p=1$c2FsdHNhbHQ$aGFzaA`
    assert.equal(needsRehash(phc(19_456, 2), defaultHashCost), true)
    assert.equal(needsRehash(phc(7_168, 5), defaultHashCost), false)
  })

  it('is the cost of the dummy hash for unknown users (one dummy per cost)', async () => {
    const dummy = await dummyHash(configured)
    assert.deepEqual(costOf(dummy), configured)
    assert.equal(await dummyHash(configured), dummy)
    assert.notEqual(await dummyHash(), dummy)
  })
})

describe('passwordPolicy', () => {
  it('asks for at least 8 and at most 1024 characters', () => {
    assert.deepEqual(passwordPolicy, { minLength: 8, maxLength: 1024 })
  })

  it('counts characters, not UTF-16 units, and names the rule when it refuses', () => {
    assert.match(passwordProblem('pw') ?? '', /8 to 1024 characters/)
    assert.match(passwordProblem('1234567') ?? '', /8 to 1024/)
    assert.equal(passwordProblem('12345678'), undefined)
    // Seven emoji are fourteen UTF-16 units but seven characters: too short.
    assert.ok(passwordProblem('😀'.repeat(7)))
    assert.equal(passwordProblem('😀'.repeat(8)), undefined)
    assert.equal(passwordProblem('x'.repeat(1024)), undefined)
    assert.ok(passwordProblem('x'.repeat(1025)))
  })
})

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DomainError } from '../../src/domain/errors.ts'
import { translate } from '../../src/store/dialects/postgres-errors.ts'
import { NoAcceptableHost, saysHostGone } from '../../src/store/dialects/postgres-host-choice.ts'

const withCode = (code: string, message = 'from the server') => Object.assign(new Error(message), { code })

describe('what a failover looks like to the store', () => {
  it('answers every sign of a host gone or no longer primary as unavailable (503), never as a bug', () => {
    const failover = [
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('57P02'),
      withCode('57P03', 'the database system is in recovery mode'),
      withCode('25006', 'cannot execute INSERT in a read-only transaction'),
      withCode('08006'),
      withCode('ECONNREFUSED'),
      new Error('Connection terminated unexpectedly'),
      new NoAcceptableHost('no PostgreSQL host accepts read-write sessions'),
    ]
    for (const error of failover) {
      const translated = translate(error)
      assert.ok(translated instanceof DomainError && translated.code === 'unavailable', error.message)
      assert.equal(saysHostGone(error), true, error.message)
    }
  })

  it('does not give a host up for a statement timeout, a conflict or a constraint', () => {
    for (const code of ['57014', '40001', '23505', '53300'])
      assert.equal(saysHostGone(withCode(code)), false, code)
  })
})

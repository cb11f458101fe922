import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parse } from 'pg-connection-string'
import {
  hostsLabel,
  needsHostChoice,
  PostgresUrlError,
  parsePostgresHosts,
  sessionAccepted,
  targetSessionAttrs,
} from '../../src/store/dialects/postgres-hosts.ts'

describe('parsePostgresHosts', () => {
  it('reads libpq’s multi-host form, each host with its port, in order', () => {
    const parsed = parsePostgresHosts('postgres://u@h1:5441,h2:5442/db?target_session_attrs=read-write')
    assert.deepEqual(parsed.hosts, [
      { host: 'h1', port: 5441 },
      { host: 'h2', port: 5442 },
    ])
    assert.equal(parsed.targetSessionAttrs, 'read-write')
  })

  it('builds for each host a single-host URL that pg reads, password and other parameters kept', () => {
    const parsed = parsePostgresHosts(
      'postgresql://app:s%40cr%2Fet@h1:5441,h2/events?sslmode=disable&target_session_attrs=primary&application_name=x',
    )
    const second = parsed.urlFor(parsed.hosts[1] as never)
    assert.equal(second, 'postgresql://app:s%40cr%2Fet@h2:5432/events?sslmode=disable&application_name=x')
    const config = parse(second)
    assert.equal(config.host, 'h2')
    assert.equal(config.port, '5432')
    assert.equal(config.password, 's@cr/et')
    assert.equal(config.database, 'events')
    assert.equal(config.application_name, 'x')
  })

  it('takes the port parameter for hosts without their own, one for all or one each', () => {
    assert.deepEqual(parsePostgresHosts('postgres://a,b:6000,c/db?port=7000').hosts, [
      { host: 'a', port: 7000 },
      { host: 'b', port: 6000 },
      { host: 'c', port: 7000 },
    ])
    assert.deepEqual(parsePostgresHosts('postgres:///db?host=a,b&port=7001,7002').hosts, [
      { host: 'a', port: 7001 },
      { host: 'b', port: 7002 },
    ])
    assert.throws(() => parsePostgresHosts('postgres://a,b,c/db?port=1,2'), PostgresUrlError)
  })

  it('reads IPv6 addresses in brackets and writes them back so', () => {
    const parsed = parsePostgresHosts('postgres://u@[::1]:5441,127.0.0.1:5442/db')
    assert.deepEqual(parsed.hosts, [
      { host: '::1', port: 5441 },
      { host: '127.0.0.1', port: 5442 },
    ])
    assert.equal(parsed.urlFor(parsed.hosts[0] as never), 'postgres://u@[::1]:5441/db')
    assert.equal(hostsLabel(parsed.hosts), '[::1]:5441,127.0.0.1:5442')
  })

  it('takes one host with no port or attributes as libpq does: any, 5432', () => {
    const parsed = parsePostgresHosts('postgres://postgres@127.0.0.1/postgres')
    assert.deepEqual(parsed.hosts, [{ host: '127.0.0.1', port: 5432 }])
    assert.equal(parsed.targetSessionAttrs, 'any')
    assert.equal(parsed.urlFor(parsed.hosts[0] as never), 'postgres://postgres@127.0.0.1:5432/postgres')
  })

  it('refuses an unknown target_session_attrs, a bad port and what is no postgres URL', () => {
    assert.throws(
      () => parsePostgresHosts('postgres://h/db?target_session_attrs=master'),
      /expected one of any/,
    )
    assert.throws(() => parsePostgresHosts('postgres://h:99999/db'), /not a TCP port/)
    assert.throws(() => parsePostgresHosts('postgres://h:x/db'), PostgresUrlError)
    assert.throws(() => parsePostgresHosts('sqlite:./x.db'), PostgresUrlError)
  })

  it('knows when a URL needs the host choice (several hosts, or attributes)', () => {
    assert.equal(needsHostChoice('postgres://u@h/db'), false)
    assert.equal(needsHostChoice('postgres://u@h1,h2/db'), true)
    assert.equal(needsHostChoice('postgres://u@h/db?target_session_attrs=read-write'), true)
    assert.equal(needsHostChoice('sqlite:./x.db'), false)
  })
})

describe('sessionAccepted (libpq’s target_session_attrs)', () => {
  const primary = { readOnly: false, inRecovery: false }
  const standby = { readOnly: true, inRecovery: true }
  const readOnlyPrimary = { readOnly: true, inRecovery: false }
  it('accepts per attribute', () => {
    const table = {
      any: [true, true, true],
      'read-write': [true, false, false],
      'read-only': [false, true, true],
      primary: [true, false, true],
      standby: [false, true, false],
      'prefer-standby': [false, true, false],
    }
    for (const attrs of targetSessionAttrs) {
      assert.deepEqual(
        [primary, standby, readOnlyPrimary].map((state) => sessionAccepted(attrs, state)),
        table[attrs],
        attrs,
      )
    }
  })
})

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import {
  type Config,
  ConfigError,
  configFromEnvironment,
  defaults,
  environmentNames,
  keyBytes,
  parseConfig,
} from '../../src/config.ts'

function problemsOf(action: () => unknown): string[] {
  let caught: unknown
  try {
    action()
  } catch (error) {
    caught = error
  }
  assert.ok(caught instanceof ConfigError, `expected a ConfigError, got ${String(caught)}`)
  return caught.problems
}

describe('defaults', () => {
  it('are the documented defaults (CONTRACT.md §6, §8)', () => {
    assert.deepEqual(defaults, {
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'sqlite:./data/events.db',
      logLevel: 'info',
      accessLog: true,
      adminPassword: undefined,
      seed: true,
      bodyLimit: 16 * 1024,
      maxPerPage: 100,
      maxHeaderSize: 16 * 1024,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      authCacheTtlMs: 60_000,
      dbPoolSize: 10,
      costlyReadConnections: 0,
      costlyReadQueueMs: 1_000,
      dbConnectTimeoutMs: 3_000,
      dbStatementTimeoutMs: 10_000,
      dbStartupTimeoutMs: 30_000,
      databaseListenUrl: undefined,
      databasePooler: 'none',
      databaseReadUrl: undefined,
      replicaMaxLagMs: 1000,
      replicaWaitMs: 50,
      sqliteBusyWaitMs: 2_000,
      readBudgetMs: 3_000,
      readWorkers: 1,
      sqliteCacheKib: 2_048,
      memorySaver: 'auto',
      shutdownTimeoutMs: 10_000,
      trustProxy: false,
      tlsCert: undefined,
      tlsKey: undefined,
      tlsCiphers:
        'ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256',
      tlsMinVersion: 'TLSv1.2',
      corsOrigins: [],
      authFailuresPerMinute: 10,
      keyEncryptionKey: undefined,
      passwordHashMemoryKib: 7_168,
      passwordHashTimeCost: 5,
      rateLimitReads: 1_200,
      rateLimitWrites: 600,
      redisUrl: undefined,
      maxConnectionsPerAddress: 64,
      changeLogMaxAgeSeconds: 604_800,
      changeLogMaxEntries: 100_000,
      feedHeartbeatMs: 15_000,
      feedMaxConnections: 1_000,
      feedMaxConnectionsPerAddress: 16,
      feedMaxBufferedBytes: 1_048_576,
      compression: true,
      http2MaxConcurrentStreams: 100,
    })
    assert.ok(Object.isFrozen(defaults))
  })

  it('names an environment variable for every setting', () => {
    assert.deepEqual(Object.keys(environmentNames).sort(), Object.keys(defaults).sort())
    assert.equal(new Set(Object.values(environmentNames)).size, Object.keys(defaults).length)
  })
})

describe('parseConfig', () => {
  it('gives the defaults for an empty input, frozen', () => {
    const config = parseConfig({})
    assert.deepEqual(config, defaults)
    assert.ok(Object.isFrozen(config))
    assert.throws(() => {
      ;(config as { port: number }).port = 1
    }, TypeError)
  })

  it('reads every setting', () => {
    const config = parseConfig({
      port: '3000',
      host: '127.0.0.1',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/test',
      logLevel: 'debug',
      accessLog: 'false',
      adminPassword: 'correct horse battery staple',
      seed: 'false',
      bodyLimit: '1024',
      maxPerPage: '50',
      maxHeaderSize: '8192',
      headersTimeoutMs: '5000',
      requestTimeoutMs: '20000',
      authCacheTtlMs: '0',
      dbPoolSize: '4',
      costlyReadConnections: '1',
      costlyReadQueueMs: '250',
      dbConnectTimeoutMs: '1500',
      dbStatementTimeoutMs: '2500',
      dbStartupTimeoutMs: '0',
      databaseListenUrl: 'postgres://direct/db',
      databasePooler: 'transaction',
      databaseReadUrl: 'postgres://u@replica1:5433,replica2:5434/test',
      replicaMaxLagMs: '500',
      replicaWaitMs: '20',
      sqliteBusyWaitMs: '250',
      readBudgetMs: '1500',
      readWorkers: '2',
      sqliteCacheKib: '8192',
      memorySaver: 'off',
      shutdownTimeoutMs: '4000',
      trustProxy: '127.0.0.1, 10.0.0.0/8, ::1',
      tlsCert: '/etc/ers/cert.pem',
      tlsKey: '/etc/ers/key.pem',
      tlsCiphers: 'ECDHE+AESGCM',
      tlsMinVersion: 'TLSv1.3',
      corsOrigins: 'https://app.example, http://localhost:5173',
      authFailuresPerMinute: '5',
      keyEncryptionKey: 'a'.repeat(64),
      passwordHashMemoryKib: '65536',
      passwordHashTimeCost: '3',
      rateLimitReads: '0',
      rateLimitWrites: '30',
      redisUrl: 'redis://127.0.0.1:6379/2',
      maxConnectionsPerAddress: '8',
      changeLogMaxAgeSeconds: '3600',
      changeLogMaxEntries: '500',
      feedHeartbeatMs: '250',
      feedMaxConnections: '0',
      feedMaxConnectionsPerAddress: '2',
      feedMaxBufferedBytes: '65536',
      compression: 'false',
      http2MaxConcurrentStreams: '32',
    })
    assert.deepEqual(config, {
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/test',
      logLevel: 'debug',
      accessLog: false,
      adminPassword: 'correct horse battery staple',
      seed: false,
      bodyLimit: 1024,
      maxPerPage: 50,
      maxHeaderSize: 8192,
      headersTimeoutMs: 5000,
      requestTimeoutMs: 20000,
      authCacheTtlMs: 0,
      dbPoolSize: 4,
      costlyReadConnections: 1,
      costlyReadQueueMs: 250,
      dbConnectTimeoutMs: 1500,
      dbStatementTimeoutMs: 2500,
      dbStartupTimeoutMs: 0,
      databaseListenUrl: 'postgres://direct/db',
      databasePooler: 'transaction',
      databaseReadUrl: 'postgres://u@replica1:5433,replica2:5434/test',
      replicaMaxLagMs: 500,
      replicaWaitMs: 20,
      sqliteBusyWaitMs: 250,
      readBudgetMs: 1500,
      readWorkers: 2,
      sqliteCacheKib: 8192,
      memorySaver: 'off',
      shutdownTimeoutMs: 4000,
      trustProxy: ['127.0.0.1', '10.0.0.0/8', '::1'],
      tlsCert: '/etc/ers/cert.pem',
      tlsKey: '/etc/ers/key.pem',
      tlsCiphers: 'ECDHE+AESGCM',
      tlsMinVersion: 'TLSv1.3',
      corsOrigins: ['https://app.example', 'http://localhost:5173'],
      authFailuresPerMinute: 5,
      keyEncryptionKey: 'a'.repeat(64),
      passwordHashMemoryKib: 65536,
      passwordHashTimeCost: 3,
      rateLimitReads: 0,
      rateLimitWrites: 30,
      redisUrl: 'redis://127.0.0.1:6379/2',
      maxConnectionsPerAddress: 8,
      changeLogMaxAgeSeconds: 3600,
      changeLogMaxEntries: 500,
      feedHeartbeatMs: 250,
      feedMaxConnections: 0,
      feedMaxConnectionsPerAddress: 2,
      feedMaxBufferedBytes: 65_536,
      compression: false,
      http2MaxConcurrentStreams: 32,
    } satisfies Config)
    assert.ok(Object.isFrozen(config))
  })

  it("keeps at least one connection of DB_POOL_SIZE out of the costly reads' share", () => {
    assert.equal(parseConfig({ dbPoolSize: '4', costlyReadConnections: '3' }).costlyReadConnections, 3)
    assert.deepEqual(
      problemsOf(() => parseConfig({ dbPoolSize: '4', costlyReadConnections: '4' })),
      ['COSTLY_READ_CONNECTIONS=4: expected fewer than DB_POOL_SIZE (4)'],
    )
  })

  it('refuses an unknown DATABASE_POOLER and a DATABASE_LISTEN_URL that is not PostgreSQL', () => {
    assert.deepEqual(
      problemsOf(() => parseConfig({ databasePooler: 'session', databaseListenUrl: 'sqlite:x.db' })),
      [
        'DATABASE_LISTEN_URL=sqlite:x.db: expected postgres://…',
        'DATABASE_POOLER=session: expected none or transaction',
      ],
    )
  })

  it('refuses a DATABASE_READ_URL that is not PostgreSQL, or replicas of an SQLite database', () => {
    assert.deepEqual(
      problemsOf(() => parseConfig({ databaseReadUrl: 'sqlite:x.db' })),
      ['DATABASE_READ_URL=sqlite:x.db: expected postgres://…'],
    )
    assert.deepEqual(
      problemsOf(() => parseConfig({ databaseUrl: 'sqlite:x.db', databaseReadUrl: 'postgres://r/db' })),
      ['DATABASE_READ_URL: replicas need a PostgreSQL DATABASE_URL (their primary)'],
    )
  })

  it('accepts each database URL form', () => {
    for (const url of [
      'sqlite:./data/events.db',
      'sqlite::memory:',
      'sqlite:/tmp/x.db',
      'postgres://h/db',
      'postgresql://u@h:5432/db',
    ]) {
      assert.equal(parseConfig({ databaseUrl: url }).databaseUrl, url)
    }
  })

  it('accepts every pino level', () => {
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) {
      assert.equal(parseConfig({ logLevel: level }).logLevel, level)
    }
  })

  it('turns the access log off with ACCESS_LOG=false, and refuses what is not a boolean', () => {
    assert.equal(configFromEnvironment({ ACCESS_LOG: 'false' }).accessLog, false)
    assert.equal(configFromEnvironment({ ACCESS_LOG: 'on' }).accessLog, true)
    assert.deepEqual(
      problemsOf(() => parseConfig({ accessLog: 'sometimes' })),
      ['ACCESS_LOG=sometimes: expected true or false'],
    )
  })

  it('reads the spellings of true and false, in any case', () => {
    for (const text of ['true', 'TRUE', '1', 'yes', 'Yes', 'on'])
      assert.equal(parseConfig({ seed: text }).seed, true)
    for (const text of ['false', 'False', '0', 'no', 'NO', 'off'])
      assert.equal(parseConfig({ seed: text }).seed, false)
  })

  it('accepts the integer bounds', () => {
    assert.equal(parseConfig({ port: '0' }).port, 0)
    assert.equal(parseConfig({ port: '65535' }).port, 65535)
    assert.equal(parseConfig({ maxPerPage: '1' }).maxPerPage, 1)
    assert.equal(parseConfig({ maxPerPage: '10000' }).maxPerPage, 10_000)
    assert.equal(parseConfig({ bodyLimit: '256' }).bodyLimit, 256)
    assert.equal(parseConfig({ authCacheTtlMs: '3600000' }).authCacheTtlMs, 3_600_000)
  })

  const badIntegers: [keyof Config, string][] = [
    ['port', '65536'],
    ['port', '-1'],
    ['port', 'http'],
    ['port', '80.5'],
    ['port', '1e3'],
    ['port', ' 80'],
    ['port', '0x50'],
    ['bodyLimit', '255'],
    ['maxPerPage', '0'],
    ['maxPerPage', '10001'],
    ['maxHeaderSize', '1023'],
    ['headersTimeoutMs', '99'],
    ['requestTimeoutMs', '3600001'],
    ['authCacheTtlMs', '-5'],
    ['shutdownTimeoutMs', '-1'],
    ['sqliteBusyWaitMs', '600001'],
    ['readBudgetMs', '0'],
    ['readBudgetMs', '600001'],
    ['readWorkers', '0'],
    ['readWorkers', '65'],
    ['sqliteCacheKib', '63'],
    ['sqliteCacheKib', '1048577'],
    ['dbStartupTimeoutMs', 'soon'],
    ['changeLogMaxAgeSeconds', '59'],
    ['changeLogMaxEntries', '0'],
    ['feedHeartbeatMs', '9'],
    ['feedMaxConnections', '-1'],
    ['feedMaxConnectionsPerAddress', 'many'],
    ['feedMaxBufferedBytes', '16383'],
  ]
  for (const [key, text] of badIntegers) {
    it(`refuses ${environmentNames[key]}=${JSON.stringify(text)}, naming the variable`, () => {
      const problems = problemsOf(() => parseConfig({ [key]: text }))
      assert.equal(problems.length, 1)
      assert.ok(problems[0]?.startsWith(`${environmentNames[key]}=${text}:`), problems[0])
    })
  }

  it('refuses a MEMORY_SAVER that is not auto, on or off', () => {
    const problems = problemsOf(() => parseConfig({ memorySaver: 'yes' }))
    assert.deepEqual(problems, ['MEMORY_SAVER=yes: expected auto, on, off'])
  })

  it('refuses a database URL of another kind', () => {
    for (const url of ['mysql://h/db', 'sqlite:', 'postgres://', 'events.db', 'SQLITE:x']) {
      const problems = problemsOf(() => parseConfig({ databaseUrl: url }))
      assert.equal(problems.length, 1, url)
      assert.ok(problems[0]?.startsWith(`DATABASE_URL=${url}:`), problems[0])
    }
  })

  it('takes libpq’s multi-host form and refuses a target_session_attrs libpq does not know', () => {
    const hosts = 'postgres://app:pw@h1:5441,h2:5442/events?target_session_attrs=read-write'
    assert.equal(parseConfig({ databaseUrl: hosts }).databaseUrl, hosts)
    const problems = problemsOf(() =>
      parseConfig({ databaseUrl: 'postgres://app:s3cr3t-pw@h1,h2/events?target_session_attrs=master' }),
    )
    assert.equal(problems.length, 1)
    assert.match(
      problems[0] ?? '',
      /^DATABASE_URL=postgres:\/\/app:\*\*\*@h1,h2\/events\?target_session_attrs=master: target_session_attrs=master: expected one of any, read-write/,
    )
  })

  it('never repeats the password of a refused database URL', () => {
    const problems = problemsOf(() => parseConfig({ databaseUrl: 'mysql://app:s3cr3t-pw@db:3306/events' }))
    assert.equal(problems.length, 1)
    assert.doesNotMatch(problems[0] ?? '', /s3cr3t-pw/)
    assert.match(problems[0] ?? '', /^DATABASE_URL=mysql:\/\/app:\*\*\*@db:3306\/events:/)
  })

  it('holds ADMIN_PASSWORD to the password policy of `ers users add`', () => {
    const problems = problemsOf(() => parseConfig({ adminPassword: 'pw' }))
    assert.equal(problems.length, 1)
    assert.match(problems[0] ?? '', /^ADMIN_PASSWORD: a password must have 8 to 1024 characters/)
    assert.doesNotMatch(problems[0] ?? '', /=pw/, 'the refused password itself is not echoed')
    assert.equal(parseConfig({ adminPassword: 'long-enough' }).adminPassword, 'long-enough')
  })

  it('reads TRUST_PROXY as a switch, a hop count or a list of addresses', () => {
    assert.equal(parseConfig({ trustProxy: 'true' }).trustProxy, true)
    assert.equal(parseConfig({ trustProxy: 'off' }).trustProxy, false)
    assert.equal(parseConfig({ trustProxy: '0' }).trustProxy, false)
    assert.equal(parseConfig({ trustProxy: '2' }).trustProxy, 2)
    assert.deepEqual(parseConfig({ trustProxy: '127.0.0.1' }).trustProxy, ['127.0.0.1'])
    assert.deepEqual(parseConfig({ trustProxy: '192.168.0.0/16,fd00::/8' }).trustProxy, [
      '192.168.0.0/16',
      'fd00::/8',
    ])
    for (const text of ['maybe', 'proxy.example', '127.0.0.1,,10.0.0.1', '-1', '999.1.1.1', '10.0.0.0/33']) {
      const problems = problemsOf(() => parseConfig({ trustProxy: text }))
      assert.equal(problems.length, 1, text)
      assert.ok(problems[0]?.startsWith(`TRUST_PROXY=${text}:`), problems[0])
    }
  })

  it('wants TLS_CERT and TLS_KEY together', () => {
    assert.deepEqual(
      problemsOf(() => parseConfig({ tlsCert: '/c.pem' })),
      ['TLS_CERT and TLS_KEY: set both (HTTPS) or neither (plain HTTP)'],
    )
    assert.equal(problemsOf(() => parseConfig({ tlsKey: '/k.pem' })).length, 1)
  })

  it('takes TLS_CIPHERS that OpenSSL knows and that enable only ECDHE suites with AES-GCM or ChaCha20-Poly1305', () => {
    for (const text of [
      'ECDHE-RSA-AES128-GCM-SHA256',
      'ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES256-GCM-SHA384',
      'ECDHE+AESGCM:ECDHE+CHACHA20',
    ]) {
      assert.equal(parseConfig({ tlsCiphers: text }).tlsCiphers, text)
    }
    const refused: [string, RegExp][] = [
      ['nonsense', /^TLS_CIPHERS=nonsense: OpenSSL enables no cipher suite with it$/],
      // Static RSA key exchange: no forward secrecy.
      ['AES128-GCM-SHA256', /^TLS_CIPHERS=AES128-GCM-SHA256: enables AES128-GCM-SHA256: only ECDHE suites/],
      // CBC: Lucky Thirteen.
      ['ECDHE-RSA-AES128-SHA', /enables ECDHE-RSA-AES128-SHA: only ECDHE suites/],
      ['ECDHE-RSA-AES128-GCM-SHA256:AES128-SHA', /enables AES128-SHA: only/],
      ['DEFAULT', /^TLS_CIPHERS=DEFAULT: enables .+ more: only ECDHE suites/],
      // CCM (Node cannot name it): the line points to openssl.
      ['ECDHE+AES', /enables suites that `openssl ciphers -v 'ECDHE\+AES'` lists/],
      ['TLS_AES_128_GCM_SHA256', /TLS_CIPHERS sets the TLS 1\.2 suites only/],
    ]
    for (const [text, reason] of refused) {
      const problems = problemsOf(() => parseConfig({ tlsCiphers: text }))
      assert.equal(problems.length, 1, text)
      assert.match(problems[0] as string, reason)
    }
  })

  it('takes TLS_MIN_VERSION TLSv1.2 or TLSv1.3 only', () => {
    assert.equal(parseConfig({ tlsMinVersion: 'TLSv1.3' }).tlsMinVersion, 'TLSv1.3')
    for (const text of ['TLSv1.1', 'TLSv1', '1.3', 'tlsv1.3']) {
      assert.deepEqual(
        problemsOf(() => parseConfig({ tlsMinVersion: text })),
        [`TLS_MIN_VERSION=${text}: expected TLSv1.2 or TLSv1.3`],
      )
    }
  })

  it('reads CORS_ORIGINS as a list of origins and refuses anything else', () => {
    assert.deepEqual(parseConfig({ corsOrigins: 'https://a.example' }).corsOrigins, ['https://a.example'])
    for (const text of ['*', 'https://a.example/', 'a.example', 'https://a.example,ftp://b.example']) {
      assert.equal(problemsOf(() => parseConfig({ corsOrigins: text })).length, 1, text)
    }
  })

  it('takes KEY_ENCRYPTION_KEY only as 32 bytes in base64 or hex', () => {
    const key = Buffer.alloc(32, 7)
    assert.equal(
      parseConfig({ keyEncryptionKey: key.toString('base64') }).keyEncryptionKey,
      key.toString('base64'),
    )
    assert.deepEqual(keyBytes(key.toString('hex')), key)
    assert.deepEqual(keyBytes(key.toString('base64url')), key)
    for (const text of ['short', 'a'.repeat(63), Buffer.alloc(16).toString('base64')]) {
      const problems = problemsOf(() => parseConfig({ keyEncryptionKey: text }))
      assert.equal(problems.length, 1)
      assert.doesNotMatch(problems[0] ?? '', new RegExp(text), 'the key itself is not echoed')
    }
  })

  it('takes only redis:// and rediss:// URLs for REDIS_URL, never echoing a password', () => {
    assert.equal(parseConfig({ redisUrl: 'rediss://cache:6380' }).redisUrl, 'rediss://cache:6380')
    const problems = problemsOf(() => parseConfig({ redisUrl: 'http://u:hunter2@cache' }))
    assert.equal(problems.length, 1)
    assert.doesNotMatch(problems[0] ?? '', /hunter2/)
  })

  it("takes a password hash cost only as strong as one of OWASP's Argon2id configurations", () => {
    for (const [m, t] of [
      ['47104', '1'],
      ['19456', '2'],
      ['12288', '3'],
      ['9216', '4'],
      ['7168', '5'],
      ['65536', '3'],
      ['7168', '9'],
    ] as const) {
      const config = parseConfig({ passwordHashMemoryKib: m, passwordHashTimeCost: t })
      assert.deepEqual([config.passwordHashMemoryKib, config.passwordHashTimeCost], [Number(m), Number(t)])
    }
    for (const [m, t] of [
      ['19455', '2'],
      ['47103', '1'],
      ['19456', '1'],
      ['12287', '3'],
      ['9216', '3'],
      ['7168', '4'],
    ] as const) {
      const problems = problemsOf(() => parseConfig({ passwordHashMemoryKib: m, passwordHashTimeCost: t }))
      assert.equal(problems.length, 1, `m=${m} t=${t}`)
      assert.match(problems[0] ?? '', /weaker than every Argon2id configuration OWASP recommends/)
      assert.match(problems[0] ?? '', /m=7168 with t=5/)
    }
    // Alone, with the other at its default (7168 KiB, 5 passes).
    assert.equal(problemsOf(() => parseConfig({ passwordHashMemoryKib: '7167' })).length, 1)
    assert.equal(problemsOf(() => parseConfig({ passwordHashTimeCost: '4' })).length, 1)
    assert.equal(problemsOf(() => parseConfig({ passwordHashTimeCost: '0' })).length, 1)
  })

  it('refuses an unknown log level', () => {
    const problems = problemsOf(() => parseConfig({ logLevel: 'verbose' }))
    assert.equal(problems.length, 1)
    assert.ok(problems[0]?.startsWith('LOG_LEVEL=verbose:'))
  })

  it('refuses a word that is neither true nor false', () => {
    const problems = problemsOf(() => parseConfig({ seed: 'maybe' }))
    assert.deepEqual(problems, ['SEED=maybe: expected true or false'])
  })

  it('reports every bad value together in one ConfigError', () => {
    const raw = {
      port: '99999',
      databaseUrl: 'mysql://x',
      logLevel: 'loud',
      seed: 'perhaps',
      bodyLimit: '1',
      maxPerPage: '0',
      maxHeaderSize: 'big',
      headersTimeoutMs: '1',
      requestTimeoutMs: '-1',
      authCacheTtlMs: 'forever',
    }
    let caught: unknown
    try {
      parseConfig(raw)
    } catch (error) {
      caught = error
    }
    assert.ok(caught instanceof ConfigError)
    assert.ok(caught instanceof Error)
    const names = caught.problems.map((p) => p.slice(0, p.indexOf('=')))
    assert.deepEqual(
      names.sort(),
      Object.keys(raw)
        .map((k) => environmentNames[k as keyof Config])
        .sort(),
    )
    for (const problem of caught.problems) assert.ok(caught.message.includes(problem), problem)
  })

  it('reports exactly the bad settings among good ones', () => {
    const problems = problemsOf(() =>
      parseConfig({ port: '8081', seed: 'nah', maxPerPage: '50', logLevel: 'x' }),
    )
    assert.deepEqual(problems.map((p) => p.slice(0, p.indexOf('='))).sort(), ['LOG_LEVEL', 'SEED'])
  })

  it('takes unset settings from the given base', () => {
    const base = { ...defaults, port: 9000, seed: false }
    assert.equal(parseConfig({}, base).port, 9000)
    assert.equal(parseConfig({}, base).seed, false)
    assert.equal(parseConfig({ port: '9001' }, base).port, 9001)
  })

  it('reads back every valid port and refuses every integer above 65535', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 65535 }), (port) => {
        assert.equal(parseConfig({ port: String(port) }).port, port)
      }),
    )
    fc.assert(
      fc.property(fc.integer({ min: 65536, max: 2 ** 40 }), (port) => {
        assert.equal(problemsOf(() => parseConfig({ port: String(port) })).length, 1)
      }),
    )
  })
})

describe('configFromEnvironment', () => {
  it('gives the defaults for an empty environment', () => {
    assert.deepEqual(configFromEnvironment({}), defaults)
  })

  it('reads the environment variables of CONTRACT.md §8', () => {
    const config = configFromEnvironment({
      PORT: '9090',
      HOST: '::1',
      DATABASE_URL: 'sqlite::memory:',
      LOG_LEVEL: 'warn',
      ADMIN_PASSWORD: 'hunter22hunter22',
      SEED: 'false',
      MAX_PER_PAGE: '25',
      AUTH_CACHE_TTL_MS: '500',
    })
    assert.equal(config.port, 9090)
    assert.equal(config.host, '::1')
    assert.equal(config.databaseUrl, 'sqlite::memory:')
    assert.equal(config.logLevel, 'warn')
    assert.equal(config.adminPassword, 'hunter22hunter22')
    assert.equal(config.seed, false)
    assert.equal(config.maxPerPage, 25)
    assert.equal(config.authCacheTtlMs, 500)
    assert.ok(Object.isFrozen(config))
  })

  it('treats an empty variable as unset', () => {
    assert.deepEqual(configFromEnvironment({ PORT: '', SEED: '', ADMIN_PASSWORD: '' }), defaults)
  })

  it('ignores unrelated variables', () => {
    assert.deepEqual(configFromEnvironment({ PATH: '/usr/bin', port: '1', NODE_ENV: 'test' }), defaults)
  })

  it('lets command-line overrides win over the environment', () => {
    const config = configFromEnvironment({ PORT: '9090', LOG_LEVEL: 'warn' }, { port: '7070' })
    assert.equal(config.port, 7070)
    assert.equal(config.logLevel, 'warn')
  })

  it('reports bad environment values and bad overrides together', () => {
    const problems = problemsOf(() => configFromEnvironment({ PORT: 'x', SEED: 'y' }, { logLevel: 'z' }))
    assert.deepEqual(problems.map((p) => p.slice(0, p.indexOf('='))).sort(), ['LOG_LEVEL', 'PORT', 'SEED'])
  })

  it('does not report an environment value that an override replaces', () => {
    assert.equal(configFromEnvironment({ PORT: 'not-a-port' }, { port: '8081' }).port, 8081)
  })
})

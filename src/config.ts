// Every setting the service has, its default and what it means. Read once (from the environment
// or the command line), validated as a whole, frozen and passed down: nothing below main.ts and
// the CLI reads process.env.
import proxyAddr from '@fastify/proxy-addr'
import { largestPerPage } from './contract/schemas.ts'
import { passwordProblem } from './domain/password-policy.ts'
import {
  cipherStringProblem,
  defaultTlsCiphers,
  type TlsMinVersion,
  tlsMinVersions,
} from './http/tls-policy.ts'
import { postgresUrlProblem } from './store/dialects/postgres-hosts.ts'

export const databasePoolers = ['none', 'transaction'] as const
export type DatabasePooler = (typeof databasePoolers)[number]

export interface Config {
  /** TCP port to listen on. */
  readonly port: number
  /** Interface to bind; `0.0.0.0` listens on all IPv4 interfaces. */
  readonly host: string
  /** `sqlite:<path>`, `sqlite::memory:` or `postgres://…`. */
  readonly databaseUrl: string
  /** pino level: fatal, error, warn, info, debug, trace or silent. */
  readonly logLevel: string
  /**
   * One line per answered request at info (and one as each starts, at debug); false: none. Errors
   * are logged either way.
   */
  readonly accessLog: boolean
  /** Password for the `admin` editor created when no user exists; random when unset. */
  readonly adminPassword: string | undefined
  /** Fill a brand-new database with sample locations and events. */
  readonly seed: boolean
  /** Largest request body accepted, in bytes (413 beyond). */
  readonly bodyLimit: number
  /** Largest `per_page` accepted. */
  readonly maxPerPage: number
  /** Largest request header section accepted, in bytes (431 beyond). */
  readonly maxHeaderSize: number
  /** Time allowed for the request headers to arrive, in ms. */
  readonly headersTimeoutMs: number
  /** Time allowed for a whole request to arrive, in ms. */
  readonly requestTimeoutMs: number
  /** How long a verified Basic credential is remembered, in ms (0 disables the cache). */
  readonly authCacheTtlMs: number
  /** PostgreSQL: most connections one instance opens for requests, the costly reads' share included. */
  readonly dbPoolSize: number
  /**
   * PostgreSQL: connections of DB_POOL_SIZE set apart for filtered pages of /events, so that they
   * never hold the cheap reads' (0: a quarter of DB_POOL_SIZE, at least 1).
   */
  readonly costlyReadConnections: number
  /** PostgreSQL: longest a filtered page waits for one of those connections before it is answered 503, in ms. */
  readonly costlyReadQueueMs: number
  /** PostgreSQL: how long to wait for a connection before answering 503, in ms. */
  readonly dbConnectTimeoutMs: number
  /** PostgreSQL: longest a statement may run before it is cancelled (503), in ms. */
  readonly dbStatementTimeoutMs: number
  /** At start-up, how long to keep trying to reach the database before giving up, in ms. */
  readonly dbStartupTimeoutMs: number
  /**
   * PostgreSQL: a direct connection (not through a transaction pooler) for the change feed's
   * LISTEN and for migrations; unset: DATABASE_URL.
   */
  readonly databaseListenUrl: string | undefined
  /** PostgreSQL: `transaction` when DATABASE_URL is a pooler in transaction mode (PgBouncer), else `none`. */
  readonly databasePooler: DatabasePooler
  /**
   * PostgreSQL: streaming replicas for plain reads, in libpq's multi-host form
   * (`postgres://u@h1:5433,h2:5434/events`); unset: every read goes to DATABASE_URL.
   */
  readonly databaseReadUrl: string | undefined
  /** A replica serves reads only while its data is less than this many ms behind the primary. */
  readonly replicaMaxLagMs: number
  /** Longest a read waits for a replica to replay this instance's writes before it reads the primary, in ms. */
  readonly replicaWaitMs: number
  /** SQLite: how long a write waits for another process's write lock before answering 503, in ms. */
  readonly sqliteBusyWaitMs: number
  /**
   * How long a filtered page of /events may take, queue included, before it is answered 503, in
   * ms: on a SQLite file in a reader thread, off the event loop; on PostgreSQL as the statement's
   * statement_timeout (what is left of the budget after the queue).
   */
  readonly readBudgetMs: number
  /** SQLite file: reader threads for filtered pages of /events (each one statement at a time). */
  readonly readWorkers: number
  /** On SIGTERM, how long in-flight requests may take to finish before they are cut off, in ms. */
  readonly shutdownTimeoutMs: number
  /**
   * Which peers are proxies whose X-Forwarded-* fields count: false (none), true (any), a hop
   * count, or a list of addresses and CIDR ranges.
   */
  readonly trustProxy: TrustProxy
  /** Path of a PEM certificate chain; with `tlsKey`, the service serves HTTPS itself. */
  readonly tlsCert: string | undefined
  /** Path of the PEM private key of `tlsCert`. */
  readonly tlsKey: string | undefined
  /**
   * OpenSSL cipher string of the TLS 1.2 suites offered; it may only narrow or reorder the ECDHE
   * AES-GCM/ChaCha20-Poly1305 set (http/tls-policy.ts). TLS 1.3 offers its own suites.
   */
  readonly tlsCiphers: string
  /** Oldest TLS version accepted: `TLSv1.2` or `TLSv1.3`. */
  readonly tlsMinVersion: TlsMinVersion
  /** Origins allowed by CORS (`https://app.example`); empty: CORS is off. */
  readonly corsOrigins: readonly string[]
  /** Failed authentication attempts allowed per minute, per client address and per user name. */
  readonly authFailuresPerMinute: number
  /** 32 random bytes (base64 or hex) under which API key secrets are encrypted at rest. */
  readonly keyEncryptionKey: string | undefined
  /** Argon2id memory cost of new password hashes, in KiB (older, weaker hashes are upgraded at login). */
  readonly passwordHashMemoryKib: number
  /** Argon2id time cost (iterations) of new password hashes. */
  readonly passwordHashTimeCost: number
  /** Reads allowed per client address per minute (0: no limit). */
  readonly rateLimitReads: number
  /** Writes allowed per principal (user or API key) per minute (0: no limit). */
  readonly rateLimitWrites: number
  /** `redis://…`: rate-limit counters shared by every instance; unset: each process counts alone. */
  readonly redisUrl: string | undefined
  /** Open connections allowed per client address at once (0: no limit). */
  readonly maxConnectionsPerAddress: number
  /** Changes older than this many seconds are dropped from the change log (a resume before them gets `reset`). */
  readonly changeLogMaxAgeSeconds: number
  /** The change log keeps at most this many of the newest changes. */
  readonly changeLogMaxEntries: number
  /** Interval of the keep-alive comments on every change feed, in ms. */
  readonly feedHeartbeatMs: number
  /** Change feeds one instance serves at once (503 beyond; 0: no limit). */
  readonly feedMaxConnections: number
  /** Change feeds open at once per client address (429 beyond; 0: no limit). */
  readonly feedMaxConnectionsPerAddress: number
  /** Bytes a feed's client may leave untaken before the feed is dropped (it can resume). */
  readonly feedMaxBufferedBytes: number
  /** Compress answers of 1 KB or more with br or gzip when the client asks (http/compression.ts). */
  readonly compression: boolean
  /** HTTP/2 (over TLS): streams one connection may have open at once (its SETTINGS_MAX_CONCURRENT_STREAMS). */
  readonly http2MaxConcurrentStreams: number
}

export type TrustProxy = boolean | number | readonly string[]

export const defaults: Config = Object.freeze({
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
  replicaMaxLagMs: 1_000,
  replicaWaitMs: 50,
  sqliteBusyWaitMs: 2_000,
  readBudgetMs: 3_000,
  readWorkers: 1,
  shutdownTimeoutMs: 10_000,
  trustProxy: false,
  tlsCert: undefined,
  tlsKey: undefined,
  tlsCiphers: defaultTlsCiphers,
  tlsMinVersion: 'TLSv1.2',
  corsOrigins: Object.freeze([]),
  authFailuresPerMinute: 10,
  keyEncryptionKey: undefined,
  passwordHashMemoryKib: 19_456,
  passwordHashTimeCost: 2,
  rateLimitReads: 1_200,
  rateLimitWrites: 600,
  redisUrl: undefined,
  maxConnectionsPerAddress: 64,
  changeLogMaxAgeSeconds: 7 * 24 * 3600,
  changeLogMaxEntries: 100_000,
  feedHeartbeatMs: 15_000,
  feedMaxConnections: 1_000,
  feedMaxConnectionsPerAddress: 16,
  feedMaxBufferedBytes: 1024 * 1024,
  compression: true,
  http2MaxConcurrentStreams: 100,
})

/** Environment variable for each setting; the CLI flag is the kebab-case of the key. */
export const environmentNames: Record<keyof Config, string> = {
  port: 'PORT',
  host: 'HOST',
  databaseUrl: 'DATABASE_URL',
  logLevel: 'LOG_LEVEL',
  accessLog: 'ACCESS_LOG',
  adminPassword: 'ADMIN_PASSWORD',
  seed: 'SEED',
  bodyLimit: 'BODY_LIMIT',
  maxPerPage: 'MAX_PER_PAGE',
  maxHeaderSize: 'MAX_HEADER_SIZE',
  headersTimeoutMs: 'HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'REQUEST_TIMEOUT_MS',
  authCacheTtlMs: 'AUTH_CACHE_TTL_MS',
  dbPoolSize: 'DB_POOL_SIZE',
  costlyReadConnections: 'COSTLY_READ_CONNECTIONS',
  costlyReadQueueMs: 'COSTLY_READ_QUEUE_MS',
  dbConnectTimeoutMs: 'DB_CONNECT_TIMEOUT_MS',
  dbStatementTimeoutMs: 'DB_STATEMENT_TIMEOUT_MS',
  dbStartupTimeoutMs: 'DB_STARTUP_TIMEOUT_MS',
  databaseListenUrl: 'DATABASE_LISTEN_URL',
  databasePooler: 'DATABASE_POOLER',
  databaseReadUrl: 'DATABASE_READ_URL',
  replicaMaxLagMs: 'REPLICA_MAX_LAG_MS',
  replicaWaitMs: 'REPLICA_WAIT_MS',
  sqliteBusyWaitMs: 'SQLITE_BUSY_WAIT_MS',
  readBudgetMs: 'READ_BUDGET_MS',
  readWorkers: 'READ_WORKERS',
  shutdownTimeoutMs: 'SHUTDOWN_TIMEOUT_MS',
  trustProxy: 'TRUST_PROXY',
  tlsCert: 'TLS_CERT',
  tlsKey: 'TLS_KEY',
  tlsCiphers: 'TLS_CIPHERS',
  tlsMinVersion: 'TLS_MIN_VERSION',
  corsOrigins: 'CORS_ORIGINS',
  authFailuresPerMinute: 'AUTH_FAILURES_PER_MINUTE',
  keyEncryptionKey: 'KEY_ENCRYPTION_KEY',
  passwordHashMemoryKib: 'PASSWORD_HASH_MEMORY_KIB',
  passwordHashTimeCost: 'PASSWORD_HASH_TIME_COST',
  rateLimitReads: 'RATE_LIMIT_READS',
  rateLimitWrites: 'RATE_LIMIT_WRITES',
  redisUrl: 'REDIS_URL',
  maxConnectionsPerAddress: 'MAX_CONNECTIONS_PER_ADDRESS',
  changeLogMaxAgeSeconds: 'CHANGE_LOG_MAX_AGE_SECONDS',
  changeLogMaxEntries: 'CHANGE_LOG_MAX_ENTRIES',
  feedHeartbeatMs: 'FEED_HEARTBEAT_MS',
  feedMaxConnections: 'FEED_MAX_CONNECTIONS',
  feedMaxConnectionsPerAddress: 'FEED_MAX_CONNECTIONS_PER_ADDRESS',
  feedMaxBufferedBytes: 'FEED_MAX_BUFFERED_BYTES',
  compression: 'COMPRESSION',
  http2MaxConcurrentStreams: 'HTTP2_MAX_CONCURRENT_STREAMS',
}

const logLevels = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`)
  }
}

type Raw = Partial<Record<keyof Config, string | undefined>>

/** Reads settings from the environment; `overrides` (already-parsed CLI flags) win. */
export function configFromEnvironment(env: NodeJS.ProcessEnv, overrides: Raw = {}): Config {
  const raw: Raw = {}
  for (const [key, name] of Object.entries(environmentNames) as [keyof Config, string][]) {
    const value = overrides[key] ?? env[name]
    if (value !== undefined && value !== '') raw[key] = value
  }
  return parseConfig(raw)
}

/** Validates every setting and reports all problems at once. */
export function parseConfig(raw: Raw, base: Config = defaults): Config {
  const problems: string[] = []
  const integer = (key: keyof Config, min: number, max: number): number => {
    const text = raw[key]
    const fallback = base[key] as number
    if (text === undefined) return fallback
    const value = Number(text)
    if (!/^\d+$/.test(text) || value < min || value > max) {
      problems.push(`${environmentNames[key]}=${text}: expected an integer from ${min} to ${max}`)
      return fallback
    }
    return value
  }
  const boolean = (key: keyof Config): boolean => {
    const text = raw[key]?.toLowerCase()
    if (text === undefined) return base[key] as boolean
    if (['true', '1', 'yes', 'on'].includes(text)) return true
    if (['false', '0', 'no', 'off'].includes(text)) return false
    problems.push(`${environmentNames[key]}=${raw[key]}: expected true or false`)
    return base[key] as boolean
  }

  const databaseUrl = raw.databaseUrl ?? base.databaseUrl
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    problems.push(
      `DATABASE_URL=${redactUrl(databaseUrl)}: expected sqlite:<path>, sqlite::memory: or postgres://…`,
    )
  }
  // libpq's multi-host form and target_session_attrs (store/dialects/postgres-hosts.ts).
  const hostsProblem = postgresUrlProblem(databaseUrl)
  if (hostsProblem) problems.push(`DATABASE_URL=${redactUrl(databaseUrl)}: ${hostsProblem}`)
  const databaseListenUrl = raw.databaseListenUrl ?? base.databaseListenUrl
  if (databaseListenUrl !== undefined && !/^postgres(ql)?:\/\/.+$/.test(databaseListenUrl)) {
    problems.push(`DATABASE_LISTEN_URL=${redactUrl(databaseListenUrl)}: expected postgres://…`)
  } else if (databaseListenUrl !== undefined && postgresUrlProblem(databaseListenUrl)) {
    problems.push(
      `DATABASE_LISTEN_URL=${redactUrl(databaseListenUrl)}: ${postgresUrlProblem(databaseListenUrl)}`,
    )
  }
  const databasePooler = (raw.databasePooler ?? base.databasePooler) as DatabasePooler
  if (!databasePoolers.includes(databasePooler)) {
    problems.push(`DATABASE_POOLER=${databasePooler}: expected ${databasePoolers.join(' or ')}`)
  }
  const databaseReadUrl = raw.databaseReadUrl ?? base.databaseReadUrl
  if (databaseReadUrl !== undefined && !/^postgres(ql)?:\/\/.+$/.test(databaseReadUrl)) {
    problems.push(`DATABASE_READ_URL=${redactUrl(databaseReadUrl)}: expected postgres://…`)
  } else if (databaseReadUrl !== undefined && !databaseUrl.startsWith('postgres')) {
    problems.push('DATABASE_READ_URL: replicas need a PostgreSQL DATABASE_URL (their primary)')
  } else if (databaseReadUrl !== undefined) {
    const readHostsProblem = postgresUrlProblem(databaseReadUrl)
    if (readHostsProblem)
      problems.push(`DATABASE_READ_URL=${redactUrl(databaseReadUrl)}: ${readHostsProblem}`)
  }
  const adminPassword = raw.adminPassword ?? base.adminPassword
  // The same rule as `ers users add`: a short password set here would be as weak as one set there.
  const weakAdminPassword = adminPassword === undefined ? undefined : passwordProblem(adminPassword)
  if (weakAdminPassword) problems.push(`ADMIN_PASSWORD: ${weakAdminPassword}`)
  const tlsCiphers = raw.tlsCiphers ?? base.tlsCiphers
  // Checked with or without TLS_CERT, so that a bad value is found before HTTPS is turned on.
  const weakCiphers = cipherStringProblem(tlsCiphers)
  if (weakCiphers) problems.push(`TLS_CIPHERS=${tlsCiphers}: ${weakCiphers}`)
  const tlsMinVersion = (raw.tlsMinVersion ?? base.tlsMinVersion) as TlsMinVersion
  if (!tlsMinVersions.includes(tlsMinVersion)) {
    problems.push(`TLS_MIN_VERSION=${tlsMinVersion}: expected ${tlsMinVersions.join(' or ')}`)
  }
  const logLevel = raw.logLevel ?? base.logLevel
  if (!logLevels.has(logLevel)) {
    problems.push(`LOG_LEVEL=${logLevel}: expected one of ${[...logLevels].join(', ')}`)
  }

  const config: Config = {
    port: integer('port', 0, 65535),
    host: raw.host ?? base.host,
    databaseUrl,
    logLevel,
    accessLog: boolean('accessLog'),
    adminPassword,
    seed: boolean('seed'),
    bodyLimit: integer('bodyLimit', 256, 64 * 1024 * 1024),
    maxPerPage: integer('maxPerPage', 1, largestPerPage),
    maxHeaderSize: integer('maxHeaderSize', 1024, 1024 * 1024),
    headersTimeoutMs: integer('headersTimeoutMs', 100, 3_600_000),
    requestTimeoutMs: integer('requestTimeoutMs', 100, 3_600_000),
    authCacheTtlMs: integer('authCacheTtlMs', 0, 3_600_000),
    dbPoolSize: integer('dbPoolSize', 1, 1000),
    costlyReadConnections: integer('costlyReadConnections', 0, 1000),
    costlyReadQueueMs: integer('costlyReadQueueMs', 0, 600_000),
    dbConnectTimeoutMs: integer('dbConnectTimeoutMs', 100, 600_000),
    dbStatementTimeoutMs: integer('dbStatementTimeoutMs', 100, 3_600_000),
    dbStartupTimeoutMs: integer('dbStartupTimeoutMs', 0, 3_600_000),
    databaseListenUrl,
    databasePooler,
    databaseReadUrl,
    replicaMaxLagMs: integer('replicaMaxLagMs', 1, 3_600_000),
    replicaWaitMs: integer('replicaWaitMs', 0, 60_000),
    sqliteBusyWaitMs: integer('sqliteBusyWaitMs', 0, 600_000),
    readBudgetMs: integer('readBudgetMs', 1, 600_000),
    // Each reader is a thread with its own connection and page cache; a few cores' worth at most.
    readWorkers: integer('readWorkers', 1, 64),
    shutdownTimeoutMs: integer('shutdownTimeoutMs', 0, 3_600_000),
    trustProxy: trustProxy(raw.trustProxy, base.trustProxy, problems),
    tlsCert: raw.tlsCert ?? base.tlsCert,
    tlsKey: raw.tlsKey ?? base.tlsKey,
    tlsCiphers,
    tlsMinVersion,
    corsOrigins: origins(raw.corsOrigins, base.corsOrigins, problems),
    authFailuresPerMinute: integer('authFailuresPerMinute', 1, 1_000_000),
    keyEncryptionKey: raw.keyEncryptionKey ?? base.keyEncryptionKey,
    // OWASP's floor for Argon2id is m=19 MiB with t=2; nothing weaker is accepted.
    passwordHashMemoryKib: integer('passwordHashMemoryKib', 19_456, 4_194_304),
    passwordHashTimeCost: integer('passwordHashTimeCost', 2, 100),
    rateLimitReads: integer('rateLimitReads', 0, 10_000_000),
    rateLimitWrites: integer('rateLimitWrites', 0, 10_000_000),
    redisUrl: raw.redisUrl ?? base.redisUrl,
    maxConnectionsPerAddress: integer('maxConnectionsPerAddress', 0, 1_000_000),
    changeLogMaxAgeSeconds: integer('changeLogMaxAgeSeconds', 60, 366 * 24 * 3600),
    changeLogMaxEntries: integer('changeLogMaxEntries', 1, 100_000_000),
    feedHeartbeatMs: integer('feedHeartbeatMs', 10, 3_600_000),
    feedMaxConnections: integer('feedMaxConnections', 0, 1_000_000),
    feedMaxConnectionsPerAddress: integer('feedMaxConnectionsPerAddress', 0, 1_000_000),
    // Below one message's size a feed could never send anything.
    feedMaxBufferedBytes: integer('feedMaxBufferedBytes', 16 * 1024, 1024 * 1024 * 1024),
    compression: boolean('compression'),
    http2MaxConcurrentStreams: integer('http2MaxConcurrentStreams', 1, 10_000),
  }
  if (config.redisUrl !== undefined && !/^rediss?:\/\/.+/.test(config.redisUrl)) {
    problems.push(`REDIS_URL=${redactUrl(config.redisUrl)}: expected redis://host:port or rediss://…`)
  }
  // The cheap reads, writes and the feed keep at least one connection of the pool.
  if (config.costlyReadConnections >= config.dbPoolSize && raw.costlyReadConnections !== undefined) {
    problems.push(
      `COSTLY_READ_CONNECTIONS=${config.costlyReadConnections}: expected fewer than DB_POOL_SIZE (${config.dbPoolSize})`,
    )
  }
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) {
    problems.push('TLS_CERT and TLS_KEY: set both (HTTPS) or neither (plain HTTP)')
  }
  if (config.keyEncryptionKey !== undefined && keyBytes(config.keyEncryptionKey) === undefined) {
    problems.push(
      'KEY_ENCRYPTION_KEY: expected 32 bytes written as base64 (44 characters) or hex (64 characters)',
    )
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return Object.freeze(config)
}

function trustProxy(text: string | undefined, fallback: TrustProxy, problems: string[]): TrustProxy {
  if (text === undefined) return fallback
  const lower = text.trim().toLowerCase()
  if (['true', 'yes', 'on'].includes(lower)) return true
  if (['false', 'no', 'off', '0'].includes(lower)) return false
  if (/^[1-9]\d{0,2}$/.test(lower)) return Number(lower)
  const entries = text.split(',').map((entry) => entry.trim())
  try {
    // The library that will match the peers decides what is a valid address or range.
    if (entries.every((entry) => entry !== '')) {
      proxyAddr.compile(entries)
      return Object.freeze(entries)
    }
  } catch {}
  problems.push(
    `TRUST_PROXY=${text}: expected true, false, a hop count or a comma-separated list of addresses/CIDR ranges`,
  )
  return fallback
}

/** A database URL fit for a log line or an error message: the password is replaced by `***`. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)[^@/]*@/i, '$1***@')
}

function origins(
  text: string | undefined,
  fallback: readonly string[],
  problems: string[],
): readonly string[] {
  if (text === undefined) return fallback
  const list = text.split(',').map((entry) => entry.trim())
  // RFC 6454 serialised origins: scheme, host and optional port, nothing else.
  const bad = list.filter((entry) => !/^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$/i.test(entry))
  if (bad.length > 0) {
    problems.push(`CORS_ORIGINS=${text}: expected comma-separated origins such as https://app.example:8443`)
    return fallback
  }
  return Object.freeze(list)
}

/** The 32 bytes of a key written as base64, base64url or hex; undefined when it is not one. */
export function keyBytes(text: string): Buffer | undefined {
  const bytes = /^[0-9a-f]{64}$/i.test(text)
    ? Buffer.from(text, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(text)
      ? Buffer.from(text, 'base64')
      : undefined
  return bytes?.length === 32 ? bytes : undefined
}

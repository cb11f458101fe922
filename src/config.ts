// Reads the settings (settings.ts) once, from the environment or the command line, validates them
// as a whole, freezes them and passes them down: nothing below main.ts and the CLI reads process.env.
import proxyAddr from '@fastify/proxy-addr'
import { meetsOwasp, owaspConfigurationsText } from './auth/hash-cost.ts'
import { largestPerPage } from './contract/schemas.ts'
import { passwordProblem } from './domain/password-policy.ts'
import { cipherStringProblem, type TlsMinVersion, tlsMinVersions } from './http/tls-policy.ts'
import { type MemorySaverMode, memorySaverModes } from './memory-saver.ts'
import {
  type Config,
  type DatabasePooler,
  databasePoolers,
  defaults,
  environmentNames,
  type TrustProxy,
} from './settings.ts'
import { postgresUrlProblem } from './store/dialects/postgres-hosts.ts'

// What a setting is, for whoever reads the settings.
export * from './settings.ts'

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
  const memorySaver = (raw.memorySaver ?? base.memorySaver) as MemorySaverMode
  if (!memorySaverModes.includes(memorySaver)) {
    problems.push(`MEMORY_SAVER=${memorySaver}: expected ${memorySaverModes.join(', ')}`)
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
    sqliteCacheKib: integer('sqliteCacheKib', 64, 1_048_576),
    memorySaver,
    shutdownTimeoutMs: integer('shutdownTimeoutMs', 0, 3_600_000),
    trustProxy: trustProxy(raw.trustProxy, base.trustProxy, problems),
    tlsCert: raw.tlsCert ?? base.tlsCert,
    tlsKey: raw.tlsKey ?? base.tlsKey,
    tlsCiphers,
    tlsMinVersion,
    corsOrigins: origins(raw.corsOrigins, base.corsOrigins, problems),
    authFailuresPerMinute: integer('authFailuresPerMinute', 1, 1_000_000),
    keyEncryptionKey: raw.keyEncryptionKey ?? base.keyEncryptionKey,
    // Each at least OWASP's least (m=7 MiB, t=1); the pair is checked against OWASP's below.
    passwordHashMemoryKib: integer('passwordHashMemoryKib', 7_168, 4_194_304),
    passwordHashTimeCost: integer('passwordHashTimeCost', 1, 100),
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
  if (!meetsOwasp(config)) {
    problems.push(
      `PASSWORD_HASH_MEMORY_KIB=${config.passwordHashMemoryKib} with PASSWORD_HASH_TIME_COST=${config.passwordHashTimeCost}: ` +
        `weaker than every Argon2id configuration OWASP recommends; expected at least one of ${owaspConfigurationsText}`,
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

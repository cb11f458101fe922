// Every setting the service has, its default and what it means. Read once (from the environment
// or the command line), validated as a whole, frozen and passed down: nothing below main.ts and
// the CLI reads process.env.

export interface Config {
  /** TCP port to listen on. */
  readonly port: number
  /** Interface to bind; `0.0.0.0` listens on all IPv4 interfaces. */
  readonly host: string
  /** `sqlite:<path>`, `sqlite::memory:` or `postgres://…`. */
  readonly databaseUrl: string
  /** pino level: fatal, error, warn, info, debug, trace or silent. */
  readonly logLevel: string
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
  /** PostgreSQL: most connections one instance opens. */
  readonly dbPoolSize: number
  /** PostgreSQL: how long to wait for a connection before answering 503, in ms. */
  readonly dbConnectTimeoutMs: number
  /** PostgreSQL: longest a statement may run before it is cancelled (503), in ms. */
  readonly dbStatementTimeoutMs: number
}

export const defaults: Config = Object.freeze({
  port: 8080,
  host: '0.0.0.0',
  databaseUrl: 'sqlite:./data/events.db',
  logLevel: 'info',
  adminPassword: undefined,
  seed: true,
  bodyLimit: 16 * 1024,
  maxPerPage: 100,
  maxHeaderSize: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  authCacheTtlMs: 60_000,
  dbPoolSize: 10,
  dbConnectTimeoutMs: 3_000,
  dbStatementTimeoutMs: 10_000,
})

/** Environment variable for each setting; the CLI flag is the kebab-case of the key. */
export const environmentNames: Record<keyof Config, string> = {
  port: 'PORT',
  host: 'HOST',
  databaseUrl: 'DATABASE_URL',
  logLevel: 'LOG_LEVEL',
  adminPassword: 'ADMIN_PASSWORD',
  seed: 'SEED',
  bodyLimit: 'BODY_LIMIT',
  maxPerPage: 'MAX_PER_PAGE',
  maxHeaderSize: 'MAX_HEADER_SIZE',
  headersTimeoutMs: 'HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'REQUEST_TIMEOUT_MS',
  authCacheTtlMs: 'AUTH_CACHE_TTL_MS',
  dbPoolSize: 'DB_POOL_SIZE',
  dbConnectTimeoutMs: 'DB_CONNECT_TIMEOUT_MS',
  dbStatementTimeoutMs: 'DB_STATEMENT_TIMEOUT_MS',
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
    problems.push(`DATABASE_URL=${databaseUrl}: expected sqlite:<path>, sqlite::memory: or postgres://…`)
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
    adminPassword: raw.adminPassword ?? base.adminPassword,
    seed: boolean('seed'),
    bodyLimit: integer('bodyLimit', 256, 64 * 1024 * 1024),
    maxPerPage: integer('maxPerPage', 1, 10_000),
    maxHeaderSize: integer('maxHeaderSize', 1024, 1024 * 1024),
    headersTimeoutMs: integer('headersTimeoutMs', 100, 3_600_000),
    requestTimeoutMs: integer('requestTimeoutMs', 100, 3_600_000),
    authCacheTtlMs: integer('authCacheTtlMs', 0, 3_600_000),
    dbPoolSize: integer('dbPoolSize', 1, 1000),
    dbConnectTimeoutMs: integer('dbConnectTimeoutMs', 100, 600_000),
    dbStatementTimeoutMs: integer('dbStatementTimeoutMs', 100, 3_600_000),
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return Object.freeze(config)
}

// Every setting the service has, its default, its environment variable and what it means
// (config.ts reads and checks them).
import { defaultTlsCiphers, type TlsMinVersion } from './http/tls-policy.ts'
import type { MemorySaverMode } from './memory-saver.ts'

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
  /**
   * SQLite file: the page cache of each connection (the main one and each reader thread's), in
   * KiB. The file's pages stay in the operating system's cache besides.
   */
  readonly sqliteCacheKib: number
  /**
   * V8's memory-saver mode (memory-saver.ts): `on`, `off`, or `auto`, on while the resident set is high.
   * Node 24 and later; no effect on Node 22.
   */
  readonly memorySaver: MemorySaverMode
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
  /**
   * Argon2id memory cost of new password hashes, in KiB (older, weaker hashes are upgraded at
   * login); with the time cost, at least one of OWASP's configurations (auth/hash-cost.ts).
   */
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
  // SQLite's own default; better-sqlite3 builds SQLite with 16 MiB, which a connection fills as it
  // touches pages and never gives back (docs/performance.md, "Memory").
  sqliteCacheKib: 2_048,
  memorySaver: 'auto',
  shutdownTimeoutMs: 10_000,
  trustProxy: false,
  tlsCert: undefined,
  tlsKey: undefined,
  tlsCiphers: defaultTlsCiphers,
  tlsMinVersion: 'TLSv1.2',
  corsOrigins: Object.freeze([]),
  authFailuresPerMinute: 10,
  keyEncryptionKey: undefined,
  // OWASP's Argon2id configuration with the least memory (auth/hash-cost.ts).
  passwordHashMemoryKib: 7_168,
  passwordHashTimeCost: 5,
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
  sqliteCacheKib: 'SQLITE_CACHE_KIB',
  memorySaver: 'MEMORY_SAVER',
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

// Connects by libpq's multi-host URL (postgres-hosts.ts) the way libpq does: to the first host,
// in the order given, whose session satisfies target_session_attrs. This is what lets a Patroni or
// pg_auto_failover cluster be named as `h1:5432,h2:5432?target_session_attrs=read-write` and
// followed through a failover without a restart:
//
// - One choice per URL, shared by every pool and client of the store. A connection goes straight
//   to the chosen host and checks its session there (one query, as libpq does); only while no host
//   is chosen are the hosts tried in order, by short-lived connections, one scan at a time for all.
// - An error that says the host went away or stopped taking writes (connection lost, admin or
//   crash shutdown, starting up or in recovery, read-only transaction: SQLSTATE 57P01, 57P02,
//   57P03, class 08, 25006) forgets the choice, and the connection that met it is closed so the
//   pool drops it. The next connection scans again and finds the promoted standby.
// - Meanwhile a connection fails with SQLSTATE 08001, which the store answers as 503 with
//   Retry-After (postgres-errors.ts); failed scans are at most one per `rescanMs`, so a crowd of
//   requests in a failover costs the servers one scan, not one per request.
import type pg from 'pg'
import { pgDriver } from './pg-driver.ts'
import {
  hostsLabel,
  type PostgresHost,
  type PostgresHosts,
  parsePostgresHosts,
  type SessionState,
  sessionAccepted,
  sessionStateQuery,
} from './postgres-hosts.ts'

/** How `pg` reaches PostgreSQL: the URL it reads and, for several hosts, the client class that chooses. */
export interface PostgresTarget {
  /** A single-host URL `pg` can read (for several hosts: the first, redirected at connect). */
  readonly url: string
  /** For pg.Pool's `Client` option and for single clients; undefined: plain pg.Client. */
  readonly Client?: typeof pg.Client
  /** `h1:5441,h2:5442 (read-write)`, for the start-up line; undefined for a plain URL. */
  readonly description?: string
}

export interface HostChoiceOptions {
  readonly connectionTimeoutMs: number
  /** Told why a host was passed over or a choice forgotten. */
  readonly onProblem?: (error: Error) => void
}

/** Shortest time between two scans after one found no acceptable host. */
export const rescanMs = 100

/** The target for `url`: a choosing client when it names several hosts or target_session_attrs. */
export function postgresTarget(url: string, options: HostChoiceOptions): PostgresTarget {
  let parsed: PostgresHosts
  try {
    parsed = parsePostgresHosts(url)
  } catch {
    // Not ours to judge (config.ts checks the scheme): `pg` says what is wrong with it.
    return { url }
  }
  if (parsed.hosts.length === 1 && parsed.targetSessionAttrs === 'any') return { url }
  const choice = new HostChoice(parsed, options)
  return {
    url: parsed.urlFor(parsed.hosts[0] as PostgresHost),
    Client: choice.clientClass(),
    description: `${hostsLabel(parsed.hosts)} (${parsed.targetSessionAttrs})`,
  }
}

/** One line for the start-up log when the URL names several hosts or target_session_attrs. */
export function hostChoiceDescription(url: string): string | undefined {
  const description = postgresTarget(url, { connectionTimeoutMs: 0 }).description
  return (
    description &&
    `PostgreSQL: hosts ${description}, tried in order; a failover is followed without a restart`
  )
}

/** SQLSTATE 08001, sqlclient_unable_to_establish_sqlconnection: libpq's own word for this. */
export class NoAcceptableHost extends Error {
  readonly code = '08001'
}

// What says that the chosen host is no longer the one to use.
const hostGoneCodes = new Set(['57P01', '57P02', '57P03', '25006'])
const hostGoneNetwork = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
])
const hostGoneMessages = /Connection terminated|Connection ended unexpectedly|timeout expired/i

export function saysHostGone(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (
    typeof code === 'string' &&
    (hostGoneCodes.has(code) || hostGoneNetwork.has(code) || code.startsWith('08'))
  )
    return true
  return hostGoneMessages.test(error.message)
}

class HostChoice {
  #chosen: PostgresHost | undefined
  #scan: Promise<PostgresHost> | undefined
  #failedScan: { at: number; error: Error } | undefined

  constructor(
    readonly parsed: PostgresHosts,
    readonly options: HostChoiceOptions,
  ) {}

  /** The chosen host; scans when there is none. */
  async host(): Promise<PostgresHost> {
    if (this.#chosen) return this.#chosen
    if (this.#failedScan && performance.now() - this.#failedScan.at < rescanMs) throw this.#failedScan.error
    this.#scan ??= this.#scanHosts().finally(() => {
      this.#scan = undefined
    })
    return this.#scan
  }

  forget(host: PostgresHost, error: Error) {
    if (this.#chosen !== host) return
    this.#chosen = undefined
    this.options.onProblem?.(
      new Error(
        `PostgreSQL host ${hostsLabel([host])} given up (${error.message}); the next connection looks again`,
      ),
    )
  }

  accepts(state: SessionState, standbyOnly: boolean) {
    const attrs = this.parsed.targetSessionAttrs
    // prefer-standby's second pass takes any host.
    return attrs === 'prefer-standby' && !standbyOnly ? true : sessionAccepted(attrs, state)
  }

  async #scanHosts(): Promise<PostgresHost> {
    const passes = this.parsed.targetSessionAttrs === 'prefer-standby' ? [true, false] : [true]
    const refusals: string[] = []
    for (const standbyOnly of passes) {
      for (const host of this.parsed.hosts) {
        try {
          const state = await this.#probe(host)
          if (this.accepts(state, standbyOnly)) {
            this.#chosen = host
            this.#failedScan = undefined
            return host
          }
          refusals.push(`${hostsLabel([host])} is ${describe(state)}`)
        } catch (error) {
          refusals.push(`${hostsLabel([host])}: ${(error as Error).message}`)
        }
      }
    }
    const error = new NoAcceptableHost(
      `no PostgreSQL host accepts ${this.parsed.targetSessionAttrs} sessions: ${refusals.join('; ')}`,
    )
    this.#failedScan = { at: performance.now(), error }
    throw error
  }

  async #probe(host: PostgresHost): Promise<SessionState> {
    const probe = new (pgDriver().Client)({
      connectionString: this.parsed.urlFor(host),
      connectionTimeoutMillis: this.options.connectionTimeoutMs,
      query_timeout: this.options.connectionTimeoutMs,
      application_name: 'event-resource-service (host check)',
    })
    probe.on('error', () => {})
    try {
      await probe.connect()
      return stateOf(await probe.query(sessionStateQuery))
    } finally {
      await probe.end().catch(() => {})
    }
  }

  /** A pg.Client that connects to the chosen host and reports what it meets to this choice. */
  clientClass(): typeof pg.Client {
    const choice = this
    class ChosenHostClient extends pgDriver().Client {
      #host: PostgresHost | undefined

      // pg-pool calls connect(callback); Kysely and the feed await connect().
      // biome-ignore lint/suspicious/noExplicitAny: pg's overloads (callback or promise)
      override connect(callback?: (...args: any[]) => void): any {
        const connecting = this.#connect()
        if (!callback) return connecting
        connecting.then(
          () => callback(null, this),
          (error: Error) => callback(error),
        )
      }

      async #connect(): Promise<this> {
        const host = await choice.host()
        this.#host = host
        this.host = host.host
        this.port = host.port
        // What `pg` reads the host from when it opens the socket; set before it does.
        const parameters = (this as unknown as { connectionParameters: { host: string; port: number } })
          .connectionParameters
        parameters.host = host.host
        parameters.port = host.port
        this.on('error', (error: Error) => this.#met(error))
        try {
          await super.connect()
        } catch (error) {
          this.#met(error as Error)
          throw error
        }
        if (choice.parsed.targetSessionAttrs === 'any') return this
        let state: SessionState
        try {
          state = stateOf(await super.query(sessionStateQuery))
        } catch (error) {
          this.#met(error as Error)
          await this.end().catch(() => {})
          throw error
        }
        if (!choice.accepts(state, true)) {
          const refused = new NoAcceptableHost(
            `PostgreSQL host ${hostsLabel([host])} no longer accepts ${choice.parsed.targetSessionAttrs} sessions: it is ${describe(state)}`,
          )
          choice.forget(host, refused)
          await this.end().catch(() => {})
          throw refused
        }
        return this
      }

      // Every form of query() goes through here; only the promise form is watched, which is the
      // one Kysely, the pools' readers and the feed use.
      // biome-ignore lint/suspicious/noExplicitAny: pg's many overloads
      override query(...args: any[]): any {
        // biome-ignore lint/suspicious/noExplicitAny: as above
        const result = (super.query as (...a: any[]) => any)(...args)
        if (result instanceof Promise) result.catch((error: Error) => this.#met(error))
        return result
      }

      #met(error: Error) {
        if (!this.#host || !saysHostGone(error)) return
        choice.forget(this.#host, error)
        // Read-only now (25006) yet still connected: closed, so the pool drops it on release.
        if ((error as { code?: unknown }).code === '25006') void this.end().catch(() => {})
      }
    }
    return ChosenHostClient
  }
}

function stateOf(result: pg.QueryResult): SessionState {
  const row = result.rows[0] as { read_only?: unknown; in_recovery?: unknown } | undefined
  return { readOnly: row?.read_only === true, inRecovery: row?.in_recovery === true }
}

function describe(state: SessionState) {
  if (state.inRecovery) return 'a standby (in recovery)'
  return state.readOnly ? 'a read-only primary' : 'a read-write primary'
}

// libpq's multi-host connection URL, which `pg` (pg-connection-string 2.x) cannot read: it hands
// the URL to WHATWG `new URL`, which refuses `h1:5441,h2:5442` as a host. Checked before writing
// this: no maintained npm library parses the form or connects by it (node-postgres issue #1470 is
// open since 2017), so this module parses it and postgres-host-choice.ts connects by it.
//
//   postgres://user:secret@h1:5441,h2:5442/events?target_session_attrs=read-write
//
// Each host is `name`, `name:port`, `[v6 address]` or `[v6 address]:port`; a host without a port
// takes the `port` parameter (one for all, or one per host, libpq's rule) or 5432. An empty host
// list takes the `host` parameter (e.g. a socket directory). The other parameters (sslmode,
// application_name …) are `pg`'s, kept for each single-host URL built from the list.

/** libpq's target_session_attrs (PostgreSQL 14+ has all six). */
export const targetSessionAttrs = [
  'any',
  'read-write',
  'read-only',
  'primary',
  'standby',
  'prefer-standby',
] as const
export type TargetSessionAttrs = (typeof targetSessionAttrs)[number]

export interface PostgresHost {
  readonly host: string
  readonly port: number
}

export interface PostgresHosts {
  /** In the order given: tried in that order. */
  readonly hosts: readonly PostgresHost[]
  readonly targetSessionAttrs: TargetSessionAttrs
  /** The URL for one of the hosts, without target_session_attrs: the form `pg` reads. */
  urlFor(host: PostgresHost): string
}

/** What a session reports about itself; the two things target_session_attrs asks about. */
export interface SessionState {
  /** `show transaction_read_only`: on in a standby, or with default_transaction_read_only on. */
  readonly readOnly: boolean
  /** `pg_is_in_recovery()`: a hot standby. */
  readonly inRecovery: boolean
}

/** One query that tells `sessionState` apart, on one round trip. */
export const sessionStateQuery =
  "select current_setting('transaction_read_only') = 'on' as read_only, pg_is_in_recovery() as in_recovery"

export class PostgresUrlError extends Error {}

const defaultPort = 5432

/** Parses a postgres:// URL with one or more hosts; throws PostgresUrlError on a malformed one. */
export function parsePostgresHosts(url: string): PostgresHosts {
  const match = /^(postgres(?:ql)?:)\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(url)
  if (!match)
    throw new PostgresUrlError('expected postgres://[user[:password]@]host[:port][,host[:port]…][/database]')
  const [, scheme, authority = '', path = '', query = ''] = match
  // A password may hold '@' percent-encoded only, so the last '@' ends the user part.
  const at = authority.lastIndexOf('@')
  const userInfo = at >= 0 ? authority.slice(0, at + 1) : ''
  const hostList = authority.slice(at + 1)
  const parameters = new URLSearchParams(query)
  const attrs = (parameters.get('target_session_attrs') ?? 'any') as TargetSessionAttrs
  if (!targetSessionAttrs.includes(attrs)) {
    throw new PostgresUrlError(
      `target_session_attrs=${attrs}: expected one of ${targetSessionAttrs.join(', ')}`,
    )
  }
  const portParameter = parameters.get('port')?.split(',') ?? []
  const hostParameter = parameters.get('host')
  const entries = hostList === '' && hostParameter ? hostParameter.split(',') : hostList.split(',')
  if (portParameter.length > 1 && portParameter.length !== entries.length) {
    throw new PostgresUrlError(
      `port=${parameters.get('port')}: expected one port, or one per host (${entries.length})`,
    )
  }
  const hosts = entries.map((entry, index) =>
    parseHost(entry, portParameter[portParameter.length > 1 ? index : 0]),
  )
  // `pg` takes the host from the authority; the list's own parameters go.
  const kept = new URLSearchParams(parameters)
  for (const name of ['target_session_attrs', 'host', 'port']) kept.delete(name)
  const rest = kept.size > 0 ? `?${kept.toString()}` : ''
  return {
    hosts,
    targetSessionAttrs: attrs,
    urlFor: (host) => `${scheme}//${userInfo}${formatHost(host)}${path}${rest}`,
  }
}

function parseHost(entry: string, portText: string | undefined): PostgresHost {
  const match = /^(\[[0-9a-f:.%]+\]|[^:[\]]*)(?::(\d*))?$/i.exec(entry)
  if (!match) throw new PostgresUrlError(`${entry}: expected host, host:port or [IPv6 address]:port`)
  const [, name = '', ownPort] = match
  const text = ownPort || portText || String(defaultPort)
  const port = Number(text)
  if (!/^\d+$/.test(text) || port < 1 || port > 65_535) {
    throw new PostgresUrlError(`${entry}: port ${text} is not a TCP port (1 to 65535)`)
  }
  const host = name.startsWith('[') ? name.slice(1, -1) : decodeURIComponent(name)
  return { host: host || 'localhost', port }
}

function formatHost({ host, port }: PostgresHost): string {
  if (host.includes(':')) return `[${host}]:${port}`
  // A socket directory ('/var/run/postgresql') cannot stand in the authority.
  if (host.startsWith('/')) return `${encodeURIComponent(host)}:${port}`
  return `${host}:${port}`
}

/** True when the URL needs this module: more than one host, or a target_session_attrs. */
export function needsHostChoice(url: string): boolean {
  const parsed = tryParse(url)
  return parsed !== undefined && (parsed.hosts.length > 1 || parsed.targetSessionAttrs !== 'any')
}

/** What is wrong with a postgres:// URL's hosts or target_session_attrs; undefined: nothing, or no such URL. */
export function postgresUrlProblem(url: string): string | undefined {
  if (!/^postgres(ql)?:\/\/./i.test(url)) return undefined
  try {
    parsePostgresHosts(url)
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

function tryParse(url: string): PostgresHosts | undefined {
  try {
    return parsePostgresHosts(url)
  } catch {
    return undefined
  }
}

/**
 * Whether a session with `state` is acceptable under `attrs` (libpq's rules). `prefer-standby`
 * accepts a standby here; choosing any host when none is one is the caller's second pass.
 */
export function sessionAccepted(attrs: TargetSessionAttrs, state: SessionState): boolean {
  switch (attrs) {
    case 'any':
      return true
    case 'read-write':
      return !state.readOnly
    case 'read-only':
      return state.readOnly
    case 'primary':
      return !state.inRecovery
    case 'standby':
    case 'prefer-standby':
      return state.inRecovery
  }
}

/** `host:port,host:port` for log lines and messages (no user, no password). */
export function hostsLabel(hosts: readonly PostgresHost[]): string {
  return hosts.map(formatHost).join(',')
}

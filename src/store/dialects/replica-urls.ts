// DATABASE_READ_URL in libpq's multi-host form (`postgres://u@h1:5433,h2:5434/events?…`), which
// node-postgres does not parse, as one URL per replica: the same user, database and parameters.
// Each replica is read apart from the others, so target_session_attrs has no say here.
import { parsePostgresHosts } from './postgres-hosts.ts'

export function replicaUrls(readUrl: string): string[] {
  const parsed = parsePostgresHosts(readUrl)
  return parsed.hosts.map((host) => parsed.urlFor(host))
}

/** The start-up line that says where plain reads go. */
export function replicaDescription(settings: {
  readonly databaseReadUrl?: string
  readonly replicaMaxLagMs: number
  readonly replicaWaitMs: number
}): string {
  const hosts = settings.databaseReadUrl
    ? parsePostgresHosts(settings.databaseReadUrl).hosts.map(({ host, port }) => `${host}:${port}`)
    : []
  return `plain reads go to the replicas ${hosts.join(', ')} while less than ${settings.replicaMaxLagMs} ms behind the primary (REPLICA_MAX_LAG_MS), after waiting up to ${settings.replicaWaitMs} ms for this instance's writes (REPLICA_WAIT_MS)`
}

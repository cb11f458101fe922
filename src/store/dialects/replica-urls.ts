// DATABASE_READ_URL in libpq's multi-host form (`postgres://u@h1:5433,h2:5434/events?…`), which
// node-postgres does not parse, as one URL per replica: the same user, database and parameters.
// Each replica is read apart from the others, so target_session_attrs has no say here.
import { parsePostgresHosts } from './postgres-hosts.ts'

export function replicaUrls(readUrl: string): string[] {
  const parsed = parsePostgresHosts(readUrl)
  return parsed.hosts.map((host) => parsed.urlFor(host))
}

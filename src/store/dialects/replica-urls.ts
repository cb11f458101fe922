// DATABASE_READ_URL in libpq's multi-host form (`postgres://u@h1:5433,h2:5434/events?…`), which
// node-postgres does not parse, as one URL per replica: the same user, database and parameters.
export function replicaUrls(readUrl: string): string[] {
  const match = /^(postgres(?:ql)?:\/\/)(?:([^@/]*)@)?([^/?#]*)(.*)$/.exec(readUrl)
  if (!match) return [readUrl]
  const [, scheme, credentials, hosts = '', rest] = match
  const userinfo = credentials === undefined ? '' : `${credentials}@`
  return hosts
    .split(',')
    .filter((host) => host !== '')
    .map((host) => `${scheme}${userinfo}${host}${rest}`)
}

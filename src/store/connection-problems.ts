// What a failure to reach the database means to the person starting the service, and whether
// waiting could help (a database still starting in a container) or not (a wrong password).
import { DomainError } from '../domain/errors.ts'

export interface ConnectionProblem {
  /** One plain sentence, without secrets. */
  readonly reason: string
  /** What to do about it, when there is something obvious. */
  readonly hint?: string
  /** True when the same attempt may succeed later without any change. */
  readonly retryable: boolean
}

/** Explains a failure of the first contact with the database; undefined when it is something else. */
export function explainConnectionFailure(error: unknown, databaseUrl: string): ConnectionProblem | undefined {
  const cause = error instanceof DomainError && error.cause !== undefined ? error.cause : error
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length)
    // The write lock held by another process (an `ers import`) past SQLITE_BUSY_WAIT_MS.
    if (error instanceof DomainError && error.code === 'unavailable') {
      return {
        reason: `the SQLite file ${path} is locked by another process, such as an import`,
        retryable: true,
      }
    }
    return explainSqlite(cause, path)
  }
  return explainPostgres(cause, databaseUrl)
}

function explainSqlite(error: unknown, path: string): ConnectionProblem | undefined {
  const code = codeOf(error)
  if (code === 'SQLITE_CANTOPEN' || ['EACCES', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOENT'].includes(code ?? '')) {
    return {
      reason: `the SQLite file ${path} cannot be opened or created`,
      hint: 'check that its directory exists or can be created, and that this user may write there',
      retryable: false,
    }
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return {
      reason: `${path} is not a usable SQLite database`,
      hint: 'point DATABASE_URL at the right file, or restore it from a backup',
      retryable: false,
    }
  }
  return undefined
}

function explainPostgres(error: unknown, databaseUrl: string): ConnectionProblem | undefined {
  // Several hosts, none taking the sessions asked for (dialects/postgres-host-choice.ts): the
  // message names each host and what it was.
  if (codeOf(error) === '08001') {
    return {
      reason: (error as Error).message,
      hint: 'a failover may be under way; otherwise check that DATABASE_URL names the primary among its hosts',
      retryable: true,
    }
  }
  let url: URL
  try {
    url = new URL(databaseUrl)
  } catch {
    return undefined
  }
  const host = url.hostname || 'localhost'
  const port = url.port || '5432'
  const user = decodeURIComponent(url.username) || 'postgres'
  const database = decodeURIComponent(url.pathname.slice(1)) || user
  const code = codeOf(error)
  const message = error instanceof Error ? error.message : String(error)
  // PgBouncer refuses the session settings `pg` sends at connection start unless told it is there.
  if (/unsupported startup parameter/i.test(message)) {
    return {
      reason: `${host}:${port} refused a connection setting (${message}): a pooler such as PgBouncer, not PostgreSQL`,
      hint: 'behind PgBouncer in transaction mode set DATABASE_POOLER=transaction (and DATABASE_LISTEN_URL for the change feed)',
      retryable: false,
    }
  }
  switch (code) {
    case '3D000':
      // A container entrypoint may still be creating it: worth waiting for.
      return {
        reason: `database "${database}" does not exist on ${host}:${port}`,
        hint: `create it with: createdb -h ${host} -p ${port} -U ${user} ${database}`,
        retryable: true,
      }
    case '28P01':
    case '28000':
      return {
        reason: `PostgreSQL at ${host}:${port} refused user "${user}" (${message})`,
        hint: 'check the user name and password in DATABASE_URL, and pg_hba.conf',
        retryable: false,
      }
    case 'ECONNREFUSED':
      return {
        reason: `nothing accepts connections at ${host}:${port}`,
        hint: 'is PostgreSQL running there? check the host and port in DATABASE_URL',
        retryable: true,
      }
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return {
        reason: `the database host "${host}" cannot be resolved`,
        hint: 'check the host name in DATABASE_URL',
        retryable: true,
      }
    case '57P03':
      return { reason: `PostgreSQL at ${host}:${port} is starting up or shutting down`, retryable: true }
  }
  if (error instanceof DomainError && error.code === 'unavailable') {
    return {
      reason: `PostgreSQL at ${host}:${port} did not answer (${message})`,
      hint: 'check that it runs and that DATABASE_URL names it',
      retryable: true,
    }
  }
  if (/timeout|terminated|ECONNRESET/i.test(`${code ?? ''} ${message}`)) {
    return { reason: `PostgreSQL at ${host}:${port} did not answer (${message})`, retryable: true }
  }
  return undefined
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code === 'string') return code
  // Node reports a failed connection to every address of a host as one AggregateError.
  if (error instanceof AggregateError) return error.errors.map(codeOf).find((c) => c !== undefined)
  return undefined
}

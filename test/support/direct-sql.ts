// Reads and writes a test's database directly, beside the service, on either store: to compare
// what the API answers with what the tables hold, or to set up more rows than HTTP would in time.
// Statements are plain SQL without parameters that both stores understand.
import Sqlite from 'better-sqlite3'
import pg from 'pg'

export async function directQuery<Row = Record<string, unknown>>(
  databaseUrl: string,
  query: string,
): Promise<Row[]> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Sqlite(databaseUrl.slice('sqlite:'.length), { readonly: true })
    try {
      return db.prepare(query).all() as Row[]
    } finally {
      db.close()
    }
  }
  return withClient(databaseUrl, async (client) => (await client.query(query)).rows as Row[])
}

/** Runs the statements in one transaction. */
export async function directWrite(databaseUrl: string, statements: readonly string[]): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Sqlite(databaseUrl.slice('sqlite:'.length))
    try {
      // The service may hold the write lock for a moment.
      db.pragma('busy_timeout = 5000')
      db.transaction(() => {
        for (const statement of statements) db.prepare(statement).run()
      }).immediate()
    } finally {
      db.close()
    }
    return
  }
  await withClient(databaseUrl, async (client) => {
    await client.query('begin')
    for (const statement of statements) await client.query(statement)
    await client.query('commit')
  })
}

async function withClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3_000 })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

// The stores every contract test runs against. Each target makes a fresh, empty database and
// drops it afterwards, so tests never share state.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type { Bouncer } from './pgbouncer.ts'

export interface StoreTarget {
  readonly name: string
  /** Makes a new empty database; returns its URL and how to remove it. */
  create(): Promise<{
    databaseUrl: string
    drop(): Promise<void>
    /** Settings the service needs for this database beside its URL (a pooler's, for instance). */
    settings?: Partial<Record<'databaseListenUrl' | 'databasePooler', string>>
  }>
}

/** SQLite, in every run; for tests of HTTP behaviour that need some store, not each. */
export const sqlite: StoreTarget = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'ers-test-'))
    return {
      databaseUrl: `sqlite:${join(dir, 'events.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    }
  },
}

/** `ERS_TEST_STORES=sqlite` runs the suite on SQLite alone, on purpose (CI's run under a second Node). */
const sqliteOnly = process.env.ERS_TEST_STORES === 'sqlite'
/**
 * `ERS_TEST_STORES=pgbouncer` runs the suite on PostgreSQL through a PgBouncer in transaction mode
 * alone (`npm run test:contract:pgbouncer`, part of test:extra for its cost): the direct runs are
 * npm test's.
 */
const pgbouncerOnly = process.env.ERS_TEST_STORES === 'pgbouncer'

/** An admin URL of a PostgreSQL server on which the tests may create and drop databases. */
const postgresAdminUrl = sqliteOnly ? undefined : process.env.DATABASE_URL_TEST_PG || undefined

/** Why the PostgreSQL runs are skipped, or undefined when they run. */
export const postgresSkipReason = sqliteOnly
  ? 'ERS_TEST_STORES=sqlite'
  : pgbouncerOnly
    ? 'ERS_TEST_STORES=pgbouncer (the direct PostgreSQL runs are npm test’s)'
    : postgresAdminUrl
      ? undefined
      : 'DATABASE_URL_TEST_PG is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres)'

if (postgresSkipReason) {
  // CI promises both stores: a silently skipped PostgreSQL run there would be a false green.
  if (process.env.CI === 'true' && !sqliteOnly && !pgbouncerOnly)
    throw new Error(`CI=true but ${postgresSkipReason}`)
  // One line per test file (node --test runs each in its own process).
  process.stderr.write(`note: PostgreSQL store tests are skipped: ${postgresSkipReason}\n`)
}

async function withAdminClient<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3_000 })
  client.on('error', () => {})
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

function postgresTarget(adminUrl: string): StoreTarget {
  return {
    name: 'postgres',
    async create() {
      const name = `ers_test_${randomBytes(8).toString('hex')}`
      const quoted = `"${name}"` // made of [a-z0-9_] above: nothing to escape
      await withAdminClient(adminUrl, (c) => c.query(`create database ${quoted}`))
      const url = new URL(adminUrl)
      url.pathname = `/${name}`
      return {
        databaseUrl: url.toString(),
        drop: () =>
          withAdminClient(adminUrl, async (c) => {
            // FORCE ends connections a failed test may have left open (PostgreSQL 13+).
            await c.query(`drop database if exists ${quoted} with (force)`)
          }),
      }
    },
  }
}

/** The PostgreSQL target, when the environment names a server. */
export const postgres: StoreTarget | undefined =
  postgresAdminUrl && !pgbouncerOnly ? postgresTarget(postgresAdminUrl) : undefined

/**
 * Databases of the same server reached through one PgBouncer in transaction mode, started with
 * the first database this test process asks for and stopped when it exits; the feed LISTENs on
 * the direct URL (DATABASE_LISTEN_URL), as docs/operations.md tells operators to.
 */
function pgbouncerTarget(adminUrl: string): StoreTarget {
  const direct = postgresTarget(adminUrl)
  let bouncer: Promise<Bouncer> | undefined
  return {
    name: 'postgres-pgbouncer',
    async create() {
      // Imported here: npm test's runs need no PgBouncer, and its module checks for one.
      bouncer ??= import('./pgbouncer.ts').then(async ({ startPgbouncer }) => {
        const started = await startPgbouncer(adminUrl)
        // Started once for every test of this process: it must not keep the process alive.
        started.unref()
        process.once('exit', () => started.stopNow())
        return started
      })
      const made = await direct.create()
      const name = new URL(made.databaseUrl).pathname.slice(1)
      return {
        databaseUrl: (await bouncer).url(name),
        drop: made.drop,
        settings: { databasePooler: 'transaction', databaseListenUrl: made.databaseUrl },
      }
    },
  }
}

if (pgbouncerOnly && !process.env.DATABASE_URL_TEST_PG) {
  throw new Error('ERS_TEST_STORES=pgbouncer needs DATABASE_URL_TEST_PG (the server behind PgBouncer)')
}

export const storeTargets: readonly StoreTarget[] = pgbouncerOnly
  ? [pgbouncerTarget(process.env.DATABASE_URL_TEST_PG as string)]
  : postgres
    ? [sqlite, postgres]
    : [sqlite]

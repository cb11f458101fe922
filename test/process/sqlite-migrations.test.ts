// Migrations on SQLite: each run is one IMMEDIATE transaction (store/dialects/sqlite.ts), so
// processes migrating one file take turns, and a run that fails leaves the schema it found.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import Sqlite from 'better-sqlite3'
import { type Kysely, sql } from 'kysely'
import type { Migration, MigrationProvider } from 'kysely/migration'
import { DomainError } from '../../src/domain/errors.ts'
import { openSqlite } from '../../src/store/dialects/sqlite.ts'
import type { DialectConnection } from '../../src/store/kysely-store.ts'
import { migrations } from '../../src/store/migrations/index.ts'

/** The flavour does not change which migrations exist, only how they are written. */
const anyFlavour = {
  schema: 'sqlite',
} as const satisfies Parameters<typeof migrations>[0]

const root = fileURLToPath(new URL('../..', import.meta.url))

let dir: string
let file: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ers-migrate-'))
  file = join(dir, 'events.db')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** Reads the file through a connection of its own, as an operator would. */
function inspect<T>(read: (db: Sqlite.Database) => T): T {
  const db = new Sqlite(file)
  try {
    return read(db)
  } finally {
    db.close()
  }
}

const tableNames = (db: Sqlite.Database) =>
  db
    .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`)
    .pluck()
    .all() as string[]

const tables = () => inspect(tableNames)

const recorded = () =>
  inspect((db) =>
    tableNames(db).includes('kysely_migration')
      ? (db.prepare('select name from kysely_migration order by name').pluck().all() as string[])
      : [],
  )

// Runs in each child before the CLI: loads the heavy modules, says "ready" and waits for its
// standard input to end, so that every child starts migrating at the same moment instead of
// whenever its start-up happened to finish.
const moduleUrl = (path: string) => JSON.stringify(pathToFileURL(join(root, path)).href)
const barrier = `data:text/javascript,${encodeURIComponent(`
await import(${moduleUrl('src/server.ts')});
await import(${moduleUrl('src/store/open-store.ts')});
process.stderr.write('ready\\n');
for await (const chunk of process.stdin);
`)}`

interface Migrating {
  readonly ready: Promise<void>
  go(): void
  readonly done: Promise<{ code: number | null; stdout: string; stderr: string }>
}

/** Starts `ers migrate` (the sources, not bin/ers.js, which runs the compiled build) on `file`. */
function startMigrate(): Migrating {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', barrier, 'src/cli/main.ts', 'migrate'],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  const output = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk
  })
  const exited = once(child, 'exit')
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output.stderr += chunk
      if (output.stderr.includes('ready\n')) resolve()
    })
    void exited.then(([code]) =>
      reject(new Error(`ers migrate exited (${code}) before it was ready: ${output.stderr}`)),
    )
  })
  return {
    ready,
    go: () => child.stdin.end(),
    done: exited.then(([code]) => ({ code: code as number | null, ...output })),
  }
}

describe('[sqlite] several processes migrating one new file at the same moment', () => {
  it('all exit 0, exactly one applies the migrations, each is recorded once, the schema is whole', async () => {
    const runs = Array.from({ length: 4 }, startMigrate)
    await Promise.all(runs.map((r) => r.ready))
    for (const run of runs) run.go()
    const results = await Promise.all(runs.map((r) => r.done))

    for (const r of results) assert.equal(r.code, 0, `ers migrate failed: ${r.stdout}${r.stderr}`)
    const appliers = results.filter((r) => r.stdout.startsWith('applied: '))
    assert.equal(
      appliers.length,
      1,
      `one process applies, the others find nothing to do: ${results.map((r) => r.stdout).join('')}`,
    )
    const known = Object.keys(await migrations(anyFlavour).getMigrations())
    assert.equal(appliers[0]?.stdout, `applied: ${known.join(', ')}\n`)
    for (const r of results.filter((r) => r !== appliers[0])) assert.equal(r.stdout, 'schema is up to date\n')

    assert.deepEqual(recorded(), known)
    for (const table of ['events', 'idempotency_keys', 'locations', 'meta', 'users']) {
      assert.ok(tables().includes(table), `table ${table} exists`)
    }
  })
})

describe('[sqlite] a migration run that fails', () => {
  let dialect: DialectConnection
  beforeEach(() => {
    dialect = openSqlite(file)
  })
  afterEach(() => dialect.close())

  const creates = (table: string): Migration => ({
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable(table)
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .execute()
    },
  })
  const failsHalfWay = (table: string): Migration => ({
    async up(db: Kysely<unknown>) {
      await creates(table).up(db)
      await sql`insert into ${sql.table(table)} (id) values (1)`.execute(db)
      throw new Error('migration failed half-way')
    },
  })
  const provider = (migrations: Record<string, Migration>): MigrationProvider => ({
    getMigrations: async () => migrations,
  })
  const migrate = (migrations: Record<string, Migration>) => {
    assert.ok(dialect.migrate, 'the SQLite dialect runs migrations itself')
    return dialect.migrate(provider(migrations))
  }

  it('on a new file leaves no table and records nothing, not even the migrations before it', async () => {
    const result = await migrate({ '0001_good': creates('good'), '0002_bad': failsHalfWay('half') })
    assert.match(String(result.error), /migration failed half-way/)
    assert.deepEqual(
      result.results?.map((r) => [r.migrationName, r.status]),
      [
        ['0001_good', 'NotExecuted'],
        ['0002_bad', 'Error'],
      ],
      'the good migration is reported undone, as it was',
    )
    assert.deepEqual(tables(), [])
    assert.deepEqual(recorded(), [])
  })

  it('on a migrated file leaves the previous schema exactly, and a corrected run then applies', async () => {
    assert.equal((await migrate({ '0001_good': creates('good') })).error, undefined)
    const before = tables()

    const failed = await migrate({
      '0001_good': creates('good'),
      '0002_more': creates('more'),
      '0003_bad': failsHalfWay('half'),
    })
    assert.ok(failed.error)
    assert.deepEqual(tables(), before, 'neither 0002 nor the half of 0003 is left')
    assert.deepEqual(recorded(), ['0001_good'])

    const fixed = await migrate({
      '0001_good': creates('good'),
      '0002_more': creates('more'),
      '0003_bad': creates('half'),
    })
    assert.equal(fixed.error, undefined)
    assert.deepEqual(recorded(), ['0001_good', '0002_more', '0003_bad'])
  })
})

describe('[sqlite] migrating while another connection holds the write lock', () => {
  const migrations = (): MigrationProvider => ({
    getMigrations: async () => ({
      '0001_first': {
        async up(db: Kysely<unknown>) {
          await db.schema.createTable('first').addColumn('id', 'integer').execute()
        },
      },
    }),
  })

  it('gives up with "unavailable" after its wait when there is work to do, and applies once the lock is gone', async () => {
    const dialect = openSqlite(file, { migrationWaitMs: 50 })
    const holder = new Sqlite(file)
    try {
      holder.exec('begin immediate')
      const waited = await dialect.migrate?.(migrations()).catch((error: unknown) => error)
      assert.ok(waited instanceof DomainError && waited.code === 'unavailable', String(waited))
      assert.deepEqual(recorded(), [])
      holder.exec('rollback')
      assert.equal((await dialect.migrate?.(migrations()))?.error, undefined)
      assert.deepEqual(recorded(), ['0001_first'])
    } finally {
      holder.close()
      await dialect.close()
    }
  })

  it('needs no lock when nothing is pending, so a server starts while an import holds it', async () => {
    // No wait at all: the run must not even try for the lock.
    const dialect = openSqlite(file, { migrationWaitMs: 0 })
    const holder = new Sqlite(file)
    try {
      assert.equal((await dialect.migrate?.(migrations()))?.error, undefined)
      holder.exec('begin immediate')
      const again = await dialect.migrate?.(migrations())
      assert.equal(again?.error, undefined)
      assert.deepEqual(again?.results, [])
    } finally {
      holder.exec('rollback')
      holder.close()
      await dialect.close()
    }
  })
})

// Released migrations never change (docs/operations.md, "Migrations"): a database migrated by an
// old release and a new database must hold the same schema. Each migration's statements, as it
// runs them on a new database of each dialect, are hashed into src/store/migrations/lock.json; a
// migration whose statements differ from its entry fails here. Migrations still build part of
// their SQL from live constants (bucket size, shard count, trigger bodies), so this is what
// notices when changing one of those would silently change an old migration.
//
// A new migration is added to the lock with UPDATE_MIGRATION_LOCK=1, which writes entries for
// names the lock does not have and never rewrites an existing one.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely'
import { openPostgres } from '../../src/store/dialects/postgres.ts'
import { openSqlite } from '../../src/store/dialects/sqlite.ts'
import type { DialectConnection } from '../../src/store/kysely-store.ts'
import { migrations } from '../../src/store/migrations/index.ts'
import { type StoreTarget, storeTargets } from '../support/stores.ts'

const lockFile = fileURLToPath(new URL('../../src/store/migrations/lock.json', import.meta.url))
type Lock = Record<string, Record<string, string>>
const readLock = (): Lock => JSON.parse(readFileSync(lockFile, 'utf8')) as Lock

/** Records the SQL of every statement run through it, compiled as the dialect sends it. */
class Recorder implements KyselyPlugin {
  statements: string[] = []
  constructor(private readonly compile: (args: PluginTransformQueryArgs) => string) {}
  transformQuery(args: PluginTransformQueryArgs) {
    this.statements.push(this.compile(args))
    return args.node
  }
  async transformResult(args: PluginTransformResultArgs) {
    return args.result
  }
}

async function statementHashes(dialect: DialectConnection): Promise<Record<string, string>> {
  const recorder = new Recorder(
    ({ node, queryId }) => dialect.db.getExecutor().compileQuery(node, queryId).sql,
  )
  const db = dialect.db.withPlugin(recorder)
  const hashes: Record<string, string> = {}
  for (const [name, migration] of Object.entries(await migrations(dialect.flavour).getMigrations())) {
    recorder.statements = []
    await migration.up(db)
    hashes[name] = createHash('sha256').update(recorder.statements.join('\n;\n')).digest('hex')
  }
  return hashes
}

const open = ({ databaseUrl, settings }: Awaited<ReturnType<StoreTarget['create']>>): DialectConnection =>
  databaseUrl.startsWith('sqlite:')
    ? openSqlite(databaseUrl.slice('sqlite:'.length))
    : openPostgres(databaseUrl, {
        pooler: settings?.databasePooler === 'transaction' ? 'transaction' : 'none',
        listenUrl: settings?.databaseListenUrl,
      })

for (const target of storeTargets) {
  describe(`[${target.name}] released migrations`, () => {
    let database: Awaited<ReturnType<StoreTarget['create']>>
    let dialect: DialectConnection
    before(async () => {
      database = await target.create()
      dialect = open(database)
    })
    after(async () => {
      await dialect?.close()
      await database?.drop()
    })

    // Recorded per dialect: PostgreSQL through PgBouncer runs PostgreSQL's statements.
    const dialectName = target.name === 'sqlite' ? 'sqlite' : 'postgres'
    it('run exactly the statements the lock file recorded when each was released', async () => {
      const hashes = await statementHashes(dialect)
      const lock = readLock()
      const recorded = lock[dialectName] ?? {}
      const added = Object.keys(hashes).filter((name) => recorded[name] === undefined)
      if (added.length > 0 && process.env.UPDATE_MIGRATION_LOCK === '1') {
        const next = readLock()
        next[dialectName] = {
          ...recorded,
          ...Object.fromEntries(added.map((name) => [name, hashes[name] as string])),
        }
        writeFileSync(lockFile, `${JSON.stringify(next, null, 2)}\n`)
      } else {
        assert.deepEqual(
          added,
          [],
          `not in src/store/migrations/lock.json yet: run with UPDATE_MIGRATION_LOCK=1`,
        )
      }
      for (const [name, hash] of Object.entries(recorded)) {
        assert.equal(
          hashes[name],
          hash,
          `released migration ${name} now runs other statements on ${target.name}: leave it as it was and write a new migration for the change`,
        )
      }
    })
  })
}

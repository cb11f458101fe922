// Released migrations never change (docs/operations.md, "Migrations"): a database migrated by an
// old release and a new database must hold the same schema. Each migration's statements, as it
// runs them on a new database of each dialect, are hashed into src/store/migrations/lock.json; a
// migration whose statements differ from its entry fails here. The values bound to those
// statements (a counter's name, a batch size) are hashed apart, under "<dialect> parameters", so
// that the statements' entries stayed those recorded before parameters were. Migrations hold their
// SQL as text and import nothing from the live code (migrations/frozen.ts); this is what notices
// an edit to one anyway.
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
import { storeTargets } from '../support/stores.ts'

const lockFile = fileURLToPath(new URL('../../src/store/migrations/lock.json', import.meta.url))
type Lock = Record<string, Record<string, string>>
const readLock = (): Lock => JSON.parse(readFileSync(lockFile, 'utf8')) as Lock

/** Records the SQL of every statement run through it, compiled as the dialect sends it. */
class Recorder implements KyselyPlugin {
  statements: string[] = []
  parameters: (readonly unknown[])[] = []
  constructor(
    private readonly compile: (args: PluginTransformQueryArgs) => {
      sql: string
      parameters: readonly unknown[]
    },
  ) {}
  transformQuery(args: PluginTransformQueryArgs) {
    const { sql, parameters } = this.compile(args)
    this.statements.push(sql)
    this.parameters.push(parameters)
    return args.node
  }
  async transformResult(args: PluginTransformResultArgs) {
    return args.result
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** Per migration, the hash of its statements and the hash of the values bound to them. */
async function migrationHashes(dialect: DialectConnection) {
  const recorder = new Recorder(({ node, queryId }) => dialect.db.getExecutor().compileQuery(node, queryId))
  const db = dialect.db.withPlugin(recorder)
  const statements: Record<string, string> = {}
  const parameters: Record<string, string> = {}
  for (const [name, migration] of Object.entries(await migrations(dialect.flavour).getMigrations())) {
    recorder.statements = []
    recorder.parameters = []
    await migration.up(db)
    statements[name] = sha256(recorder.statements.join('\n;\n'))
    parameters[name] = sha256(JSON.stringify(recorder.parameters))
  }
  return { statements, parameters }
}

/**
 * Checks `hashes` against the lock's section `section`; adds the names it does not have yet when
 * asked to (UPDATE_MIGRATION_LOCK=1), never rewriting an entry.
 */
function checkLocked(section: string, hashes: Record<string, string>, what: string) {
  const recorded = readLock()[section] ?? {}
  const added = Object.keys(hashes).filter((name) => recorded[name] === undefined)
  if (added.length > 0 && process.env.UPDATE_MIGRATION_LOCK === '1') {
    const next = readLock()
    next[section] = {
      ...recorded,
      ...Object.fromEntries(added.map((name) => [name, hashes[name] as string])),
    }
    writeFileSync(lockFile, `${JSON.stringify(next, null, 2)}\n`)
  } else {
    assert.deepEqual(added, [], `not in src/store/migrations/lock.json yet: run with UPDATE_MIGRATION_LOCK=1`)
  }
  for (const [name, hash] of Object.entries(recorded)) {
    assert.equal(
      hashes[name],
      hash,
      `released migration ${name} now runs other ${what} on ${section}: leave it as it was and write a new migration for the change`,
    )
  }
}

const open = (databaseUrl: string): DialectConnection =>
  databaseUrl.startsWith('sqlite:')
    ? openSqlite(databaseUrl.slice('sqlite:'.length))
    : openPostgres(databaseUrl)

for (const target of storeTargets) {
  describe(`[${target.name}] released migrations`, () => {
    let database: { databaseUrl: string; drop(): Promise<void> }
    let dialect: DialectConnection
    before(async () => {
      database = await target.create()
      dialect = open(database.databaseUrl)
    })
    after(async () => {
      await dialect?.close()
      await database?.drop()
    })

    it('run exactly the statements the lock file recorded when each was released', async () => {
      const { statements, parameters } = await migrationHashes(dialect)
      checkLocked(target.name, statements, 'statements')
      checkLocked(`${target.name} parameters`, parameters, 'values in its statements')
    })
  })
}

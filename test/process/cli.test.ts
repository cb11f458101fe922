import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { verifyPassword } from '../../src/auth/passwords.ts'
import { openStore } from '../../src/store/open-store.ts'
import { runCli } from '../support/process.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] ers command-line tool`, () => {
    let dir: string
    let env: Record<string, string>
    const drops: (() => Promise<void>)[] = []
    // Each test has a database of its own; `env` points the CLI at it.
    beforeEach(async () => {
      const made = await target.create()
      drops.push(made.drop)
      env = { DATABASE_URL: made.databaseUrl }
    })
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'ers-cli-'))
    })
    after(async () => {
      rmSync(dir, { recursive: true, force: true })
      for (const drop of drops) await drop()
    })

    async function inStore<T>(work: (store: ReturnType<typeof openStore>) => Promise<T>): Promise<T> {
      const store = openStore(env.DATABASE_URL as string)
      // A test may look before any command has created the schema.
      await store.migrate()
      try {
        return await work(store)
      } finally {
        await store.close()
      }
    }

    it('migrates a new database and says so, then says it is up to date', async () => {
      const first = await runCli(['migrate'], env)
      assert.equal(first.code, 0, first.stderr)
      assert.match(first.stdout, /applied: 0001_initial/)
      const second = await runCli(['migrate'], env)
      assert.equal(second.code, 0)
      assert.match(second.stdout, /up to date/)
    })

    it('adds a user with the password from standard input, stored as an argon2id hash', async () => {
      const result = await runCli(['users', 'add', 'carol', '--role', 'reader'], env, 'carol-secret-1\n')
      assert.equal(result.code, 0, result.stderr)
      const user = await inStore((store) => store.findUser('carol'))
      assert.equal(user?.role, 'reader')
      assert.match(user?.passwordHash ?? '', /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
      assert.equal(await verifyPassword(user?.passwordHash ?? '', 'carol-secret-1'), true)
      assert.doesNotMatch(result.stdout + result.stderr, /carol-secret-1/)
    })

    it('changes the role and password of an existing user, and removes users', async () => {
      assert.equal((await runCli(['users', 'add', 'dave', '--password', 'dave-secret-1'], env)).code, 0)
      assert.equal(
        (await runCli(['users', 'add', 'dave', '--role', 'reader', '--password', 'dave-secret-2'], env)).code,
        0,
      )
      const user = await inStore((store) => store.findUser('dave'))
      assert.equal(user?.role, 'reader')
      assert.equal(await verifyPassword(user?.passwordHash ?? '', 'dave-secret-2'), true)
      assert.equal((await runCli(['users', 'remove', 'dave'], env)).code, 0)
      assert.equal(await inStore((store) => store.findUser('dave')), undefined)
      const again = await runCli(['users', 'remove', 'dave'], env)
      assert.equal(again.code, 2)
      assert.match(again.stderr, /no user "dave"/)
    })

    it('refuses a short password and an unknown role without writing', async () => {
      const short = await runCli(['users', 'add', 'erin', '--password', 'short'], env)
      assert.equal(short.code, 2)
      const role = await runCli(
        ['users', 'add', 'erin', '--role', 'admin', '--password', 'long-enough-1'],
        env,
      )
      assert.equal(role.code, 2)
      assert.equal(await inStore((store) => store.findUser('erin')), undefined)
    })

    it('adds a location and prints only its id', async () => {
      const result = await runCli(
        ['locations', 'add', '--name', 'Dock 5', '--address', '5 Harbour Road'],
        env,
      )
      assert.equal(result.code, 0, result.stderr)
      const id = Number(result.stdout.trim())
      assert.ok(Number.isInteger(id) && id > 0, result.stdout)
      const location = await inStore((store) => store.getLocation(id))
      assert.deepEqual([location?.name, location?.address], ['Dock 5', '5 Harbour Road'])
    })

    it('imports a file in one transaction and reports every bad entry without writing any', async () => {
      const good = join(dir, 'good.json')
      writeFileSync(
        good,
        JSON.stringify({
          locations: [
            {
              name: 'Imported Hall',
              address: '9 Import Way',
              events: [
                { title: 'Imported one', date: '2027-03-01T10:00:00+02:00' },
                { title: 'Imported two', date: '2027-03-02T10:00:00Z' },
              ],
            },
          ],
        }),
      )
      const before = await inStore((store) => store.listEvents({ page: 1, perPage: 100 }))
      const ok = await runCli(['import', good], env)
      assert.equal(ok.code, 0, ok.stderr)
      assert.match(ok.stdout, /imported 1 locations and 2 events/)
      const afterGood = await inStore((store) => store.listEvents({ page: 1, perPage: 100 }))
      assert.equal(afterGood.total, before.total + 2)
      assert.ok(
        afterGood.events.some((e) => e.title === 'Imported one' && e.date === Date.UTC(2027, 2, 1, 8)),
      )

      const bad = join(dir, 'bad.json')
      writeFileSync(
        bad,
        JSON.stringify({
          locations: [
            { name: 'Fine', address: 'Fine', events: [{ title: 'fine', date: '2027-01-01T00:00:00Z' }] },
            { name: '', address: 'x', events: [{ title: ' ', date: '2027-02-30T00:00:00Z' }] },
          ],
        }),
      )
      const refused = await runCli(['import', bad], env)
      assert.equal(refused.code, 2)
      assert.match(refused.stderr, /\/locations\/1\/name/)
      assert.match(refused.stderr, /\/locations\/1\/events\/0\/title/)
      assert.match(refused.stderr, /\/locations\/1\/events\/0\/date/)
      const afterBad = await inStore((store) => store.listEvents({ page: 1, perPage: 100 }))
      assert.equal(afterBad.total, afterGood.total)
    })

    it('explains its usage and fails on an unknown command', async () => {
      const help = await runCli(['--help'], env)
      assert.equal(help.code, 0)
      assert.match(help.stdout, /users add NAME/)
      const unknown = await runCli(['frobnicate'], env)
      assert.equal(unknown.code, 2)
      assert.match(unknown.stderr, /unknown command/)
    })

    it('reports every bad setting at once', async () => {
      const result = await runCli(['migrate'], { ...env, PORT: 'eighty', LOG_LEVEL: 'loud' })
      assert.equal(result.code, 2)
      assert.match(result.stderr, /PORT=eighty/)
      assert.match(result.stderr, /LOG_LEVEL=loud/)
    })
  })
}

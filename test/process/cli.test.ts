import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
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
    let notADatabase: string
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'ers-cli-'))
      notADatabase = join(dir, 'notes.txt')
      writeFileSync(notADatabase, 'shopping list, not a database\n')
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
      assert.match(user?.passwordHash ?? '', /^\$argon2id\$v=19\$m=7168,t=5,p=1\$/)
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

    it('warns on standard error when the same name and address exist already, and adds it all the same', async () => {
      const add = () => runCli(['locations', 'add', '--name', 'Dock 5', '--address', '5 Harbour Road'], env)
      const first = await add()
      assert.equal(first.code, 0, first.stderr)
      assert.equal(first.stderr, '', 'no warning for the first one')
      const second = await add()
      assert.equal(second.code, 0, second.stderr)
      assert.equal(
        second.stderr,
        `ers: warning: location ${first.stdout.trim()} already has this name and address; adding another\n`,
      )
      const id = Number(second.stdout.trim())
      assert.ok(id > Number(first.stdout.trim()), 'a new location, with an id of its own')
      const other = await runCli(['locations', 'add', '--name', 'Dock 5', '--address', '6 Harbour Road'], env)
      assert.equal(other.stderr, '', 'another address is another location')
    })

    it('lists every location in id order, as text and as JSON', async () => {
      const empty = await runCli(['locations', 'list'], env)
      assert.equal(empty.code, 0, empty.stderr)
      assert.equal(empty.stdout, '')
      for (const [name, address] of [
        ['Town Hall', '1 Market Square'],
        ['Café Zürich', 'Straße 1'],
      ] as const) {
        const added = await runCli(['locations', 'add', '--name', name, '--address', address], env)
        assert.equal(added.code, 0, added.stderr)
      }
      const text = await runCli(['locations', 'list'], env)
      assert.equal(text.code, 0, text.stderr)
      assert.equal(text.stdout, '1  Town Hall    1 Market Square\n2  Café Zürich  Straße 1\n')
      const json = await runCli(['locations', 'list', '--json'], env)
      assert.equal(json.code, 0, json.stderr)
      assert.deepEqual(JSON.parse(json.stdout), [
        { id: 1, name: 'Town Hall', address: '1 Market Square' },
        { id: 2, name: 'Café Zürich', address: 'Straße 1' },
      ])
    })

    it('lists more locations than one page holds', async () => {
      await inStore((store) =>
        store.importLocations(
          Array.from({ length: 205 }, (_, i) => ({
            name: `Hall ${i + 1}`,
            address: `${i + 1} Road`,
            events: [],
          })),
        ),
      )
      const listed = await runCli(['locations', 'list', '--json'], env)
      assert.equal(listed.code, 0, listed.stderr)
      const ids = JSON.parse(listed.stdout).map((l: { id: number }) => l.id)
      assert.deepEqual(
        ids,
        Array.from({ length: 205 }, (_, i) => i + 1),
      )
    })

    it('refuses a location whose name or address breaks the rules of the import format', async () => {
      const result = await runCli(
        ['locations', 'add', '--name', 'x'.repeat(201), '--address', 'a'.repeat(301)],
        env,
      )
      assert.equal(result.code, 2)
      assert.equal(
        result.stderr,
        'ers: --address: must be a string of 1–300 characters, not only whitespace; ' +
          '--name: must be a string of 1–200 characters, not only whitespace\n',
      )
      assert.equal(await inStore((store) => store.getLocation(1)), undefined)
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

    it('prints its usage on --help and exits 0', async () => {
      const help = await runCli(['--help'], env)
      assert.equal(help.code, 0)
      for (const command of [
        'users add NAME',
        'users list',
        'locations list',
        'backup FILE',
        'import FILE',
      ]) {
        assert.ok(help.stdout.includes(command), command)
      }
    })

    it('answers a command line it cannot run with one line, the usage and exit 2, never a stack trace', async () => {
      const cases: [string[], RegExp][] = [
        [['frobnicate'], /^ers: unknown command "frobnicate"\n/],
        [['users'], /^ers: missing what to do: ers users add\|remove\|list\n/],
        [['users', 'frob'], /^ers: unknown command "users frob"\n/],
        [['migrate', '--frob'], /^ers: unknown option '--frob'\n/],
        [['users', 'add', 'erin', '--role'], /^ers: option '--role <value>' argument missing\n/],
        [['users', 'add'], /^ers: missing NAME: ers users add NAME\n/],
        [['import'], /^ers: missing FILE: ers import FILE\n/],
        [['users', 'remove', 'a', 'b'], /^ers: unexpected argument "b": ers users remove NAME\n/],
        [['users', 'list', '--name', 'x'], /^ers: --name is not an option of ers users list\n/],
        [['migrate', '--json=yes'], /^ers: option '--json' does not take an argument\n/],
        [[], /^ers: no command given\n/],
      ]
      for (const [args, message] of cases) {
        const result = await runCli(args, env)
        const shown = `ers ${args.join(' ')}:\n${result.stderr}`
        assert.equal(result.code, 2, shown)
        assert.match(result.stderr, message, shown)
        assert.match(result.stderr, /\n\nUsage: ers <command> \[options\]\n/, shown)
        assert.doesNotMatch(result.stderr, /^\s+at /m, shown)
        assert.equal(result.stdout, '', shown)
      }
    })

    it('fails with one plain line and exit 1 when the database cannot be opened or reached', async () => {
      // Something wrong with the database itself, for each store: no stack trace, a hint instead.
      const broken: [string, RegExp][] =
        target.name === 'sqlite'
          ? [
              [`sqlite:${notADatabase}`, /is not a usable SQLite database/],
              [`sqlite:${notADatabase}/under-a-file.db`, /cannot be opened or created/],
            ]
          : [
              [
                `${new URL('/', env.DATABASE_URL)}ers_no_such_database`,
                /database "ers_no_such_database" does not exist/,
              ],
              [
                `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`,
                /nothing accepts connections at 127\.0\.0\.1:/,
              ],
            ]
      for (const [url, reason] of broken) {
        const result = await runCli(['users', 'list'], { DATABASE_URL: url })
        assert.equal(result.code, 1, result.stderr)
        assert.match(result.stderr, reason)
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
        assert.doesNotMatch(result.stderr, /^\s+at /m)
      }
      // Whoever chases a bug can still see where it came from.
      const [[url]] = broken as [[string, RegExp]]
      const debug = await runCli(['users', 'list'], { DATABASE_URL: url, LOG_LEVEL: 'debug' })
      assert.equal(debug.code, 1)
      assert.match(debug.stderr, /^\s+at /m)
    })

    it('fails with one line and exit 1 when the file to import does not exist, writing nothing', async () => {
      const result = await runCli(['import', join(dir, 'missing.json')], env)
      assert.equal(result.code, 1)
      assert.equal(result.stderr, `ers: cannot read ${join(dir, 'missing.json')}: there is no such file\n`)
      assert.equal((await inStore((store) => store.listEvents({ page: 1, perPage: 1 }))).total, 0)
    })

    it('imports the sample file examples/events.json, non-ASCII text included', async () => {
      const result = await runCli(['import', 'examples/events.json'], env)
      assert.equal(result.code, 0, result.stderr)
      assert.equal(result.stdout, 'imported 4 locations and 15 events\n')
      const { total, events } = await inStore((store) => store.listEvents({ page: 1, perPage: 100 }))
      assert.equal(total, 15)
      const piano = events.find((e) => e.title === '春のピアノリサイタル')
      // 14:00 in Tokyo (+09:00) is 05:00 UTC.
      assert.equal(piano?.date, Date.UTC(2027, 2, 20, 5))
      const location = await inStore((store) => store.getLocation(piano?.locationId ?? 0))
      assert.deepEqual([location?.name, location?.address], ['市民ホール 小ホール', '東京都渋谷区神南1-1-1'])
    })

    it('lists users by name with their roles and never their hashes, as text or as JSON', async () => {
      await inStore(async (store) => {
        await store.putUser('zoe', 'editor', '$argon2id$not-a-real-hash')
        await store.putUser('ádám', 'reader', '$argon2id$not-a-real-hash')
        await store.putUser('bob', 'reader', '$argon2id$not-a-real-hash')
      })
      const text = await runCli(['users', 'list'], env)
      assert.equal(text.code, 0, text.stderr)
      // By code point, the same on every store: "á" sorts after the ASCII letters.
      assert.equal(text.stdout, 'bob   reader\nzoe   editor\nádám  reader\n')
      const json = await runCli(['users', 'list', '--json'], env)
      assert.equal(json.code, 0, json.stderr)
      assert.deepEqual(JSON.parse(json.stdout), [
        { name: 'bob', role: 'reader' },
        { name: 'zoe', role: 'editor' },
        { name: 'ádám', role: 'reader' },
      ])
      assert.doesNotMatch(text.stdout + json.stdout, /argon2/)
    })

    it('lists no users as an empty JSON array', async () => {
      const json = await runCli(['users', 'list', '--json'], env)
      assert.equal(json.code, 0, json.stderr)
      assert.equal(json.stdout, '[]\n')
    })

    if (target.name === 'sqlite') {
      it('backs up the database to a new file that holds the same data, and never overwrites a file', async () => {
        assert.equal((await runCli(['import', 'examples/events.json'], env)).code, 0)
        const file = join(dir, `backup-${Date.now()}.db`)
        const result = await runCli(['backup', file], env)
        assert.equal(result.code, 0, result.stderr)
        assert.match(result.stdout, /^backed up \d+ pages \([\d.]+ MiB\) to .+ in \d+ ms\n$/)
        const copy = openStore(`sqlite:${file}`)
        try {
          assert.equal((await copy.listEvents({ page: 1, perPage: 1 })).total, 15)
        } finally {
          await copy.close()
        }
        const again = await runCli(['backup', file], env)
        assert.equal(again.code, 2)
        assert.equal(again.stderr, `ers: ${file} already exists; name a new file\n`)
        const nowhere = await runCli(['backup', join(dir, 'no-such-dir', 'copy.db')], env)
        assert.equal(nowhere.code, 2)
        assert.match(nowhere.stderr, /does not exist/)
      })
    } else {
      it('explains that PostgreSQL is backed up with pg_dump, and exits 2 without writing a file', async () => {
        const file = join(dir, 'never-written.db')
        const result = await runCli(['backup', file], env)
        assert.equal(result.code, 2)
        assert.match(result.stderr, /pg_dump -Fc/)
        assert.equal(existsSync(file), false)
      })
    }

    it('reports every bad setting at once', async () => {
      const result = await runCli(['migrate'], { ...env, PORT: 'eighty', LOG_LEVEL: 'loud' })
      assert.equal(result.code, 2)
      assert.match(result.stderr, /PORT=eighty/)
      assert.match(result.stderr, /LOG_LEVEL=loud/)
    })
  })
}

/** A TCP port on 127.0.0.1 that nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

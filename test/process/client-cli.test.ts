// The client commands of `ers` (events …, locations get|create|update|delete) as a user runs them (bin/ers.js, the
// compiled build: `npm run build` first) against the real service on each store: what they print,
// the credentials they take from flags or ERS_* variables, and how they fail.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { type AddressInfo, createServer, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { newKeyId, newKeySecret, sealSecret } from '../../src/auth/api-key-secrets.ts'
import { EventServiceClient } from '../../src/client/index.ts'
import { keyBytes } from '../../src/config.ts'
import { poll, runCli } from '../support/process.ts'
import { editor, reader, send, startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const keyEncryptionKey = randomBytes(32).toString('base64')
const root = fileURLToPath(new URL('../..', import.meta.url))

for (const target of storeTargets) {
  describe(`[${target.name}] ers client commands`, () => {
    let service: TestService
    let locationId: number
    /** The service and the editor, as flags. */
    let asEditor: string[]

    before(async () => {
      service = await startService(target, { keyEncryptionKey })
      locationId = (await service.store.createLocation({ name: 'Hall', address: '1 Main St' })).id
      asEditor = ['--url', service.baseUrl, '--user', editor.user, '--password', editor.password]
    })
    after(() => service.close())

    const ers = async (args: string[], env: Record<string, string> = {}) => {
      const result = await runCli(args, env)
      assert.doesNotMatch(result.stderr, /^\s+at /m, 'never a stack trace')
      return result
    }
    const ok = async (args: string[], env: Record<string, string> = {}) => {
      const result = await ers(args, env)
      assert.equal(result.code, 0, `ers ${args.join(' ')}: ${result.stderr}`)
      return result.stdout
    }
    const create = async (title: string, date = '2027-03-01T18:00:00Z') =>
      JSON.parse(
        await ok([
          'events',
          'create',
          '--title',
          title,
          '--date',
          date,
          '--location',
          String(locationId),
          ...asEditor,
        ]),
      )

    it('creates, reads, updates and deletes an event, printing the representations', async () => {
      const created = await create('From the CLI')
      assert.deepEqual(Object.keys(created), ['links', 'id', 'title', 'date'])
      assert.equal(created.title, 'From the CLI')
      const read = await ok(['events', 'get', String(created.id), '--url', service.baseUrl])
      assert.equal(read, `${JSON.stringify(created)}\n`, 'the representation as the service sent it')
      const table = await ok(['events', 'get', String(created.id), '--url', service.baseUrl, '--table'])
      assert.match(
        table,
        new RegExp(
          `^ID +DATE +LOCATION +TITLE\\n${created.id} +2027-03-01T18:00:00Z +${locationId} +From the CLI\\n$`,
        ),
      )

      const updated = JSON.parse(
        await ok([
          'events',
          'update',
          String(created.id),
          '--title',
          'Renamed',
          '--date',
          '2027-03-02T10:00:00+01:00',
          ...asEditor,
        ]),
      )
      assert.equal(updated.title, 'Renamed')
      assert.equal(updated.date, '2027-03-02T09:00:00Z')
      assert.equal((await service.store.getEvent(created.id))?.title, 'Renamed')

      assert.equal(await ok(['events', 'delete', String(created.id), ...asEditor]), '')
      assert.equal(await service.store.getEvent(created.id), undefined)
      const gone = await ers(['events', 'get', String(created.id), '--url', service.baseUrl])
      assert.equal(gone.code, 1)
      assert.match(gone.stderr, /^ers: 404 Not Found: .+\n$/)
      assert.equal(gone.stdout, '')
    })

    it('takes the service and the credentials from ERS_* variables', async () => {
      const env = { ERS_URL: service.baseUrl, ERS_USER: editor.user, ERS_PASSWORD: editor.password }
      const created = JSON.parse(
        await ok(
          [
            'events',
            'create',
            '--title',
            'By env',
            '--date',
            '2027-03-05T10:00:00Z',
            '--location',
            String(locationId),
          ],
          env,
        ),
      )
      assert.equal(created.title, 'By env')
      const location = JSON.parse(await ok(['locations', 'get', String(locationId)], env))
      assert.deepEqual(Object.keys(location), ['links', 'id', 'name', 'address'])
      assert.equal(location.name, 'Hall')
      assert.match(
        await ok(['locations', 'get', String(locationId), '--table'], env),
        /^ID +NAME +ADDRESS\n\d+ +Hall +1 Main St\n$/,
      )
      // Flags win over the environment.
      const refused = await ers(['events', 'delete', String(created.id), '--password', 'wrong'], env)
      assert.equal(refused.code, 1)
      assert.match(refused.stderr, /^ers: 401 /)
    })

    it('lists a page as received, and every page with --all as JSON lines', async () => {
      const titles: string[] = []
      // Made through the library client: seven runs of the CLI would only slow the test down.
      const client = new EventServiceClient({ baseUrl: service.baseUrl, credentials: editor })
      for (let day = 10; day < 17; day++) {
        const date = `2027-04-${day}T10:00:00Z`
        titles.push(
          (await client.events.create({ title: `Listed ${day}`, date, location_id: locationId })).title,
        )
      }
      const page = JSON.parse(
        await ok([
          'events',
          'list',
          '--url',
          service.baseUrl,
          '--q',
          'listed',
          '--per-page',
          '3',
          '--page',
          '2',
        ]),
      )
      assert.deepEqual(Object.keys(page), ['total', 'events'])
      assert.equal(page.total, 7)
      assert.deepEqual(
        page.events.map((e: { title: string }) => e.title),
        titles.slice(3, 6),
      )
      const lines = (
        await ok(['events', 'list', '--url', service.baseUrl, '--q', 'listed', '--per-page', '2', '--all'])
      )
        .trimEnd()
        .split('\n')
      assert.deepEqual(
        lines.map((line) => JSON.parse(line).title),
        titles,
      )
      const table = await ok([
        'events',
        'list',
        '--url',
        service.baseUrl,
        '--q',
        'listed',
        '--per-page',
        '2',
        '--table',
      ])
      assert.match(table, /^ID +DATE +LOCATION +TITLE\n.+Listed 10\n.+Listed 11\n\(2 of 7 events\)\n$/)
    })

    it('signs with an API key from --key and --secret', async () => {
      const id = newKeyId()
      const secret = newKeySecret()
      const sealedSecret = sealSecret(secret, id, keyBytes(keyEncryptionKey) as Buffer)
      await service.store.createApiKey({
        id,
        name: 'cli',
        role: 'editor',
        sealedSecret,
        createdAt: Date.now(),
      })
      const args = ['--url', service.baseUrl, '--key', id, '--secret', secret]
      const created = JSON.parse(
        await ok([
          'events',
          'create',
          '--title',
          'Signed',
          '--date',
          '2027-05-01T10:00:00Z',
          '--location',
          String(locationId),
          ...args,
        ]),
      )
      assert.equal(created.title, 'Signed')
      assert.equal((await service.store.getEvent(created.id))?.title, 'Signed')
      const wrong = await ers([
        'events',
        'delete',
        String(created.id),
        '--url',
        service.baseUrl,
        '--key',
        id,
        '--secret',
        'nope',
      ])
      assert.equal(wrong.code, 1)
      assert.match(wrong.stderr, /^ers: 401 /)
    })

    it('fails with the problem: 422 lists the fields and exits 2, 403 for a reader exits 1', async () => {
      const invalid = await ers([
        'events',
        'create',
        '--title',
        'Bad date',
        '--date',
        '2027-02-30T10:00:00Z',
        '--location',
        String(locationId),
        ...asEditor,
      ])
      assert.equal(invalid.code, 2)
      assert.match(invalid.stderr, /^ers: 422 [^\n]+\n {2}\/date: .+\n$/)
      const asReader = ['--url', service.baseUrl, '--user', reader.user, '--password', reader.password]
      const forbidden = await ers([
        'events',
        'create',
        '--title',
        'No',
        '--date',
        '2027-02-03T10:00:00Z',
        '--location',
        String(locationId),
        ...asReader,
      ])
      assert.equal(forbidden.code, 1)
      assert.match(forbidden.stderr, /^ers: 403 Forbidden: /)
      const anonymous = await ers(['events', 'update', '1', '--title', 'No', '--url', service.baseUrl])
      assert.ok(anonymous.code === 1 && /^ers: (401|404) /.test(anonymous.stderr), anonymous.stderr)
    })

    it('creates, reads, updates and deletes a location over HTTP, printing the representations', async () => {
      const created = JSON.parse(
        await ok(['locations', 'create', '--name', 'Annex', '--address', '2 Side St', ...asEditor]),
      )
      assert.deepEqual(Object.keys(created), ['links', 'id', 'name', 'address'])
      assert.equal(created.name, 'Annex')
      assert.equal((await service.store.getLocation(created.id))?.address, '2 Side St')
      const read = await ok(['locations', 'get', String(created.id), '--url', service.baseUrl])
      assert.equal(read, `${JSON.stringify(created)}\n`, 'the representation as the service sent it')

      const updated = await ok([
        'locations',
        'update',
        String(created.id),
        '--address',
        '3 Side St',
        '--table',
        ...asEditor,
      ])
      assert.match(updated, new RegExp(`^ID +NAME +ADDRESS\\n${created.id} +Annex +3 Side St\\n$`))
      assert.equal((await service.store.getLocation(created.id))?.address, '3 Side St')

      assert.equal(await ok(['locations', 'delete', String(created.id), ...asEditor]), '')
      assert.equal(await service.store.getLocation(created.id), undefined)
      const gone = await ers(['locations', 'get', String(created.id), '--url', service.baseUrl])
      assert.equal(gone.code, 1)
      assert.match(gone.stderr, /^ers: 404 Not Found: .+\n$/)
    })

    it('fails a location write as the events commands do: 422 exits 2, 403 and 409 exit 1', async () => {
      const invalid = await ers(['locations', 'create', '--name', ' ', '--address', 'Somewhere', ...asEditor])
      assert.equal(invalid.code, 2, invalid.stderr)
      assert.match(invalid.stderr, /^ers: 422 [^\n]+\n {2}\/name: .+\n$/)
      const asReader = ['--url', service.baseUrl, '--user', reader.user, '--password', reader.password]
      const forbidden = await ers(['locations', 'create', '--name', 'No', '--address', 'No', ...asReader])
      assert.equal(forbidden.code, 1)
      assert.match(forbidden.stderr, /^ers: 403 Forbidden: /)
      // The hall of the other tests has events: the service keeps it (409), the CLI says why.
      await create('Keeps the hall')
      const kept = await ers(['locations', 'delete', String(locationId), ...asEditor])
      assert.equal(kept.code, 1, kept.stderr)
      assert.match(kept.stderr, /^ers: 409 /)
      assert.equal((await service.store.getLocation(locationId))?.name, 'Hall')
    })

    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      it(`watches the change feed, one JSON line per change, and on ${signal} sent by PID closes it and exits 0`, async () => {
        const child = spawn(
          process.execPath,
          ['bin/ers.js', 'events', 'watch', '--after', '0', '--url', service.baseUrl],
          {
            cwd: root,
            env: { ...process.env, LOG_LEVEL: 'silent' },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        )
        let stdout = ''
        let stderr = ''
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk
        })
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk
        })
        const exited = once(child, 'exit')
        const watched = await create(`Watched until ${signal}`)
        await poll(() => stdout.includes(`"Watched until ${signal}"`) || child.exitCode !== null)
        assert.equal(await openFeeds(), 1, 'the watch holds one feed open')
        // By PID, as a supervisor or `kill -TERM <pid>` sends it: no terminal, no process group.
        process.kill(child.pid as number, signal)
        const [code, killedBy] = await exited
        assert.deepEqual({ code, killedBy }, { code: 0, killedBy: null }, stderr)
        assert.equal(stderr, '')
        const changes = stdout
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line))
        const last = changes.at(-1)
        assert.deepEqual(Object.keys(last), ['event', 'id', 'data'])
        assert.equal(last.event, 'created')
        assert.deepEqual(last.data, watched)
        const numbers = changes.map((c) => c.id)
        assert.deepEqual(
          numbers,
          [...numbers].sort((a, b) => a - b),
        )
        // The connection was closed, not left for the server to find dead.
        const deadline = Date.now() + 5_000
        while ((await openFeeds()) !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
        assert.equal(await openFeeds(), 0)
      })
    }

    /** The feeds the service holds open now (its /metrics). */
    const openFeeds = async () => {
      const text = (await send(service.baseUrl, 'GET', '/metrics')).text
      return Number(/^feed_connections (\d+)/m.exec(text)?.[1])
    }
  })
}

describe('ers client commands, whatever the store', () => {
  it('lists the client commands in --help', async () => {
    const help = await runCli(['--help'], {})
    assert.equal(help.code, 0)
    for (const text of [
      'events list',
      'events get ID',
      'events create',
      'events update ID',
      'events delete ID',
      'events watch',
      'locations get ID',
      'locations create --name N --address A',
      'locations update ID',
      'locations delete ID',
      'ERS_URL',
    ]) {
      assert.ok(help.stdout.includes(text), text)
    }
  })

  it('refuses a wrong command line with exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['events', 'get', 'abc'], /^ers: ID must be an integer of at least 1, not "abc"\n/],
      [['events', 'update', '3'], /^ers: events update needs at least one of --title, --date, --location\n/],
      [
        ['events', 'create', '--title', 'x'],
        /^ers: events create needs --title T, --date D and --location ID\n/,
      ],
      [['events', 'get', '1', '--key', 'k_x'], /^ers: an API key needs both --key and --secret/],
      [
        ['events', 'list', '--url', 'ftp://example.com'],
        /^ers: --url must be an http:\/\/ or https:\/\/ URL/,
      ],
      [['events', 'list', '--all', '--page', '2'], /^ers: --all reads every page: leave out --page\n/],
      [['locations', 'create', '--name', 'x'], /^ers: locations create needs --name N and --address A\n/],
      [['locations', 'update', '3'], /^ers: locations update needs at least one of --name, --address\n/],
      [['locations', 'delete', 'x'], /^ers: ID must be an integer of at least 1, not "x"\n/],
      [['events', 'get', '1', '--role', 'editor'], /^ers: --role is not an option of ers events get\n/],
      [
        ['events', 'list', '--port', '8080'],
        /^ers: --port is a setting of the service, not an option of ers events list\n/,
      ],
    ]
    for (const [args, message] of cases) {
      const result = await runCli(args, { ERS_URL: 'http://127.0.0.1:9' })
      assert.equal(result.code, 2, `ers ${args.join(' ')}: ${result.stderr}`)
      assert.match(result.stderr, message)
    }
  })

  it('reads none of the service’s settings: a bad one in the environment does not matter', async () => {
    // Were the settings read, PORT=x would stop it with status 2 before any request.
    const result = await runCli(['events', 'list', '--url', 'http://127.0.0.1:9'], { PORT: 'x' })
    assert.equal(result.code, 1, result.stderr)
    assert.match(result.stderr, /^ers: cannot reach the service/)
  })

  it('events watch ends on SIGTERM even while the service has not answered, closing the connection', async () => {
    // A listener that takes the connection and never answers: the watch waits for the entry point.
    // Each socket is read (resumed), so that the end of the connection is seen.
    const sockets: Socket[] = []
    const silent = createServer((socket) => sockets.push(socket.resume())).listen(0, '127.0.0.1')
    await once(silent, 'listening')
    try {
      const { port } = silent.address() as AddressInfo
      const child = spawn(
        process.execPath,
        ['bin/ers.js', 'events', 'watch', '--url', `http://127.0.0.1:${port}`],
        {
          cwd: root,
          env: { ...process.env, LOG_LEVEL: 'silent' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk
      })
      const exited = once(child, 'exit')
      await poll(() => sockets.length > 0 || child.exitCode !== null)
      process.kill(child.pid as number, 'SIGTERM')
      const [code, killedBy] = await exited
      assert.deepEqual({ code, killedBy, stderr }, { code: 0, killedBy: null, stderr: '' })
      // Before this, the wait for the entry point could not be stopped: it hung until undici's
      // own timeout (300 s), the connection open.
      await poll(() => sockets.every((socket) => socket.closed))
    } finally {
      for (const socket of sockets) socket.destroy()
      silent.close()
    }
  })

  it('says so, with exit 1, when no service answers at the URL', async () => {
    // Port 9 (discard) has no listener here: the connection is refused.
    const result = await runCli(['events', 'list', '--url', 'http://127.0.0.1:9'], {})
    assert.equal(result.code, 1)
    assert.match(
      result.stderr,
      /^ers: cannot reach the service at http:\/\/127\.0\.0\.1:9\/ \(.*ECONNREFUSED.*\); set --url or ERS_URL\n$/,
    )
  })
})

// The server package as a user gets it: `npm pack` (with the client package it depends on, packed
// too), installed into an empty directory without the network, then its `ers` command, its
// `event-resource-service/client` export and that export's types used from outside against the
// real service. Needs `npm run build` first (npm run test:extra builds). The client package on its
// own: client-package.test.ts.
//
// The install runs with --ignore-scripts, so better-sqlite3 is not compiled (~95 s here): the
// client and the client commands never load a database driver (the CLI imports the store only
// for the commands that open a database), so what is tested here is what such a user runs.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  checkDeclarations,
  cleanEnv,
  diskUsage,
  installOffline,
  pack,
  root,
  run,
  typeCheckClientUse,
  writeApp,
} from '../support/packing.ts'
import { editor, startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

describe('the packed package, installed elsewhere', () => {
  let work: string
  let app: string
  let service: TestService

  before(async () => {
    assert.ok(
      existsSync(join(root, 'dist', 'client', 'index.js')) &&
        existsSync(join(root, 'dist', 'cli', 'main.js')) &&
        existsSync(join(root, 'packages', 'client', 'dist', 'index.js')),
      'dist/ is missing: run `npm run build` first',
    )
    work = mkdtempSync(join(tmpdir(), 'ers-package-'))
    app = join(work, 'app')
    mkdirSync(app)
    const server = await pack('.', work)
    const client = await pack('packages/client', work)
    const project = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    writeApp(app, [server, client], { runtime: true, overrides: project.overrides })
    const installed = await installOffline(app, { ignoreScripts: true })
    // For comparison with the client package's (client-package.test.ts); not a limit here.
    const size = await diskUsage(join(app, 'node_modules'))
    process.stdout.write(
      `# the server package: installed in ${(installed.ms / 1000).toFixed(1)} s (its install scripts ` +
        `not run) into ${(size / 1e6).toFixed(1)} MB\n`,
    )
    service = await startService(storeTargets[0] as (typeof storeTargets)[0])
  })
  after(async () => {
    await service?.close()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  const ers = (args: string[]) =>
    run(join(app, 'node_modules', '.bin', 'ers'), args, {
      cwd: app,
      env: { ...cleanEnv(), LOG_LEVEL: 'silent' },
    })

  it('ships declarations that import only what the package ships or depends on', () => {
    const installed = join(app, 'node_modules', 'event-resource-service')
    assert.ok(checkDeclarations(installed, 'dist/client/index.d.ts') >= 1)
    // The server's export is the client package's: its declarations are followed there.
    const client = join(app, 'node_modules', '@event-resource-service', 'client')
    assert.ok(
      checkDeclarations(client, 'dist/index.d.ts') > 5,
      'the declarations of the client and the contract',
    )
    assert.ok(
      !existsSync(join(installed, 'src')) && !existsSync(join(installed, 'test')),
      'sources stay home',
    )
  })

  it('runs the installed ers: --help and client commands against a running service', async () => {
    const help = await ers(['--help'])
    assert.match(help.stdout, /events list/)
    assert.match(help.stdout, /ERS_URL/)
    const url = ['--url', service.baseUrl]
    const location = (await service.store.createLocation({ name: 'Hall', address: '1 Main St' })).id
    const created = await ers([
      'events',
      'create',
      '--title',
      'From the package',
      '--date',
      '2027-01-01T10:00:00Z',
      '--location',
      String(location),
      '--user',
      editor.user,
      '--password',
      editor.password,
      ...url,
    ])
    const event = JSON.parse(created.stdout)
    assert.equal(event.title, 'From the package')
    const listed = JSON.parse((await ers(['events', 'list', ...url])).stdout)
    assert.ok(listed.events.some((e: { id: number }) => e.id === event.id))
  })

  it('imports event-resource-service/client from an ES module and lists events', async () => {
    writeFileSync(
      join(app, 'list.mjs'),
      `import { EventServiceClient } from 'event-resource-service/client'
const client = new EventServiceClient({ baseUrl: process.argv[2] })
const titles = []
for await (const event of client.events.all({ perPage: 1 })) titles.push(event.title)
console.log(JSON.stringify(titles))
`,
    )
    const { stdout } = await run(process.execPath, ['list.mjs', service.baseUrl], {
      cwd: app,
      env: cleanEnv(),
    })
    assert.ok(JSON.parse(stdout).includes('From the package'), stdout)
  })

  it("type-checks code that uses the client's types, and refuses code that misuses them", async () => {
    await typeCheckClientUse(app, 'event-resource-service/client')
  })
})

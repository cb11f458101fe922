// The client package, @event-resource-service/client, as a user gets it: `npm pack`, installed
// into an empty directory without the network and with its install scripts allowed (it has
// none), quickly and small, as nothing of the server comes along; then its `ers-client` command,
// its export and that export's types used from outside against the real service. Needs
// `npm run build` first (npm run test:extra builds).
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  checkDeclarations,
  cleanEnv,
  diskUsage,
  installedManifests,
  installOffline,
  pack,
  root,
  run,
  typeCheckClientUse,
  writeApp,
} from '../support/packing.ts'
import { editor, startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const name = '@event-resource-service/client'
/** What a client that installs "in seconds" may take (issue 31). */
const limits = { ms: 10_000, bytes: 5 * 1024 * 1024 }
/** The npm lifecycle scripts that run when a package is installed. */
const installScripts = ['preinstall', 'install', 'postinstall']

describe('the client package, installed elsewhere', () => {
  let work: string
  let app: string
  let service: TestService
  let install: { ms: number; stdout: string; stderr: string }

  before(async () => {
    assert.ok(
      existsSync(join(root, 'packages', 'client', 'dist', 'cli', 'main.js')),
      'packages/client/dist/ is missing: run `npm run build` first',
    )
    work = mkdtempSync(join(tmpdir(), 'ers-client-package-'))
    app = join(work, 'app')
    mkdirSync(app)
    writeApp(app, [await pack('packages/client', work)])
    // Scripts allowed, as a user installs: were there any, they would run (and take their time).
    install = await installOffline(app, { ignoreScripts: false })
    service = await startService(storeTargets[0] as (typeof storeTargets)[0])
  })
  after(async () => {
    await service?.close()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  const installed = () => join(app, 'node_modules', ...name.split('/'))

  it('installs offline in under 10 s into under 5 MB, with its two dependencies and nothing of the server', async () => {
    const bytes = await diskUsage(join(app, 'node_modules'))
    process.stdout.write(
      `# the client package: installed in ${(install.ms / 1000).toFixed(1)} s into ${(bytes / 1e6).toFixed(2)} MB\n`,
    )
    assert.ok(install.ms < limits.ms, `npm ci took ${Math.round(install.ms)} ms`)
    assert.ok(bytes < limits.bytes, `node_modules takes ${bytes} bytes`)
    const names = installedManifests(join(app, 'node_modules'))
      .map(({ manifest }) => manifest.name)
      .sort()
    assert.deepEqual(names, [name, 'eventsource-parser', 'undici'])
  })

  it('has no install scripts, neither itself nor anything it installs', () => {
    for (const { path, manifest } of installedManifests(join(app, 'node_modules'))) {
      const scripts = Object.keys((manifest.scripts as Record<string, string> | undefined) ?? {})
      const found = scripts.filter((script) => installScripts.includes(script))
      assert.deepEqual(found, [], `${path} has install scripts`)
      // npm also runs `node-gyp rebuild` for a package with a binding.gyp and no install script.
      assert.ok(!existsSync(join(path, 'binding.gyp')), `${path} builds a native module`)
    }
    const lock = JSON.parse(readFileSync(join(app, 'node_modules', '.package-lock.json'), 'utf8'))
    const flagged = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path)
    assert.deepEqual(flagged, [], 'npm saw no install script')
    assert.doesNotMatch(`${install.stdout}${install.stderr}`, /\b(pre|post)?install\b/)
  })

  it('ships declarations that import only what the package ships or depends on, and no sources', () => {
    assert.ok(checkDeclarations(installed(), 'dist/index.d.ts') > 5, 'the client and its contract')
    assert.ok(checkDeclarations(installed(), 'dist/contract/index.d.ts') >= 3)
    assert.ok(checkDeclarations(installed(), 'dist/cli/index.d.ts') >= 3)
    assert.ok(!existsSync(join(installed(), 'src')), 'sources stay home')
    const manifest = JSON.parse(readFileSync(join(installed(), 'package.json'), 'utf8'))
    assert.deepEqual(manifest.engines, { node: '>=22' })
  })

  it('has a contract export that loads nothing of Node nor any package: a browser bundle can take it', () => {
    const seen = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      for (const [, specifier = ''] of readFileSync(file, 'utf8').matchAll(/\bfrom '([^']+)'/g)) {
        assert.ok(specifier.startsWith('./'), `${file} imports ${specifier}`)
        visit(join(dirname(file), specifier))
      }
    }
    visit(join(installed(), 'dist', 'contract', 'index.js'))
    assert.ok(seen.size >= 3, [...seen].join(', '))
  })

  const ersClient = (args: string[]) =>
    run(join(app, 'node_modules', '.bin', 'ers-client'), args, {
      cwd: app,
      env: { ...cleanEnv(), LOG_LEVEL: 'silent' },
    })

  it('runs the installed ers-client: --help, and the client commands against a running service', async () => {
    const help = await ersClient(['--help'])
    assert.match(help.stdout, /^Usage: ers-client <command>/)
    for (const command of ['events list', 'events watch', 'locations create', 'locations delete ID']) {
      assert.ok(help.stdout.includes(command), command)
    }
    assert.doesNotMatch(help.stdout, /\bserve\b|\bmigrate\b|keys add/, 'no command that opens a database')
    const asEditor = ['--url', service.baseUrl, '--user', editor.user, '--password', editor.password]
    const location = JSON.parse(
      (
        await ersClient([
          'locations',
          'create',
          '--name',
          'Packed hall',
          '--address',
          '1 Tar St',
          ...asEditor,
        ])
      ).stdout,
    )
    assert.equal(location.name, 'Packed hall')
    const created = await ersClient([
      'events',
      'create',
      '--title',
      'From the client package',
      '--date',
      '2027-01-01T10:00:00Z',
      '--location',
      String(location.id),
      ...asEditor,
    ])
    const event = JSON.parse(created.stdout)
    assert.equal(event.title, 'From the client package')
    const listed = JSON.parse((await ersClient(['events', 'list', '--url', service.baseUrl])).stdout)
    assert.ok(listed.events.some((e: { id: number }) => e.id === event.id))
    const refused = await ersClient(['events', 'get', 'x']).then(
      () => assert.fail('ers-client accepted a wrong ID'),
      (error: { code: number; stderr: string }) => error,
    )
    assert.equal(refused.code, 2)
    assert.match(refused.stderr, /^ers-client: ID must be an integer of at least 1, not "x"\n/)
  })

  it(`imports ${name} from an ES module and lists events`, async () => {
    writeFileSync(
      join(app, 'list.mjs'),
      `import { EventServiceClient, mediaTypes } from '${name}'
import { signatureTag } from '${name}/contract'
const client = new EventServiceClient({ baseUrl: process.argv[2] })
const titles = []
for await (const event of client.events.all({ perPage: 1 })) titles.push(event.title)
console.log(JSON.stringify({ titles, type: mediaTypes.event, signatureTag }))
`,
    )
    const { stdout } = await run(process.execPath, ['list.mjs', service.baseUrl], {
      cwd: app,
      env: cleanEnv(),
    })
    const printed = JSON.parse(stdout)
    assert.ok(printed.titles.includes('From the client package'), stdout)
    assert.equal(printed.type, 'application/vnd.service.event+json')
    assert.equal(printed.signatureTag, 'ers-v2')
  })

  it("type-checks code that uses the client's types without TypeBox, and refuses code that misuses them", async () => {
    assert.ok(!existsSync(join(app, 'node_modules', 'typebox')), 'TypeBox is not installed')
    await typeCheckClientUse(app, name, `${name}/contract`)
  })
})

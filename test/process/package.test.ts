// The package as a user gets it: `npm pack`, installed into an empty directory without the
// network, then its `ers` command, its `event-resource-service/client` export and that export's
// types used from outside against the real service. Needs `npm run build` first (npm run test:extra builds).
//
// The install runs with --ignore-scripts, so better-sqlite3 is not compiled (~95 s here): the
// client and the client commands never load a database driver (the CLI imports the store only
// for the commands that open a database), so what is tested here is what such a user runs.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { editor, startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const tsc = join(root, 'node_modules', '.bin', 'tsc')
const registry = 'https://registry.npmjs.org/'

type LockEntry = Record<string, unknown> & { version?: string; resolved?: string; dev?: boolean }

/**
 * A lockfile for an app that depends on the tarball alone: the project's own lock entries of the
 * runtime dependencies (so exactly the tested versions, all in npm's cache since `npm ci`), each
 * with its registry URL (the project's .npmrc may omit them), which lets `npm ci --offline` find
 * them by integrity without asking the registry.
 */
function appLockfile(tarball: string, spec: string) {
  const project = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'))
  const packages: Record<string, LockEntry> = {
    '': { name: 'app', version: '1.0.0', dependencies: { 'event-resource-service': spec } },
    'node_modules/event-resource-service': {
      version: project.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      license: project.license,
      dependencies: project.dependencies,
      bin: project.bin,
      engines: project.engines,
    },
  }
  for (const [path, entry] of Object.entries(lock.packages as Record<string, LockEntry>)) {
    if (path === '' || entry.dev || entry.link) continue
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
    const file = `${name.split('/').at(-1)}-${entry.version}.tgz`
    packages[path] = { ...entry, resolved: entry.resolved ?? `${registry}${name}/-/${file}` }
  }
  const manifest = {
    name: 'app',
    version: '1.0.0',
    private: true,
    type: 'module',
    dependencies: { 'event-resource-service': spec },
    overrides: project.overrides,
  }
  return { manifest, lock: { name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages } }
}

/** The environment of npm and the tools it runs: none of the npm_* variables of an enclosing `npm test`. */
const cleanEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')))

describe('the packed package, installed elsewhere', () => {
  let work: string
  let app: string
  let service: TestService

  before(async () => {
    assert.ok(
      existsSync(join(root, 'dist', 'client', 'index.js')) &&
        existsSync(join(root, 'dist', 'cli', 'main.js')),
      'dist/ is missing: run `npm run build` first',
    )
    work = mkdtempSync(join(tmpdir(), 'ers-package-'))
    app = join(work, 'app')
    mkdirSync(app)
    // The build is already there: packing need not run `prepare` again.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], {
      cwd: root,
      env: cleanEnv(),
    })
    const tarball = join(work, packed.stdout.trim().split('\n').at(-1) ?? '')
    const { manifest, lock } = appLockfile(tarball, `file:${tarball}`)
    writeFileSync(join(app, 'package.json'), JSON.stringify(manifest, null, 2))
    writeFileSync(join(app, 'package-lock.json'), JSON.stringify(lock, null, 2))
    await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: app,
      env: cleanEnv(),
    })
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
    const { dependencies } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
    const seen = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      const text = readFileSync(file, 'utf8')
      for (const [, specifier = ''] of text.matchAll(/\bfrom '([^']+)'/g)) {
        if (specifier.startsWith('.')) {
          // Emitted declarations keep the sources' .ts extensions; each names a shipped .d.ts.
          const target = join(dirname(file), specifier.replace(/\.(ts|js)$/, '.d.ts'))
          assert.ok(existsSync(target), `${file} imports ${specifier}, which is not shipped`)
          visit(target)
        } else if (!specifier.startsWith('node:')) {
          const name = specifier.startsWith('@')
            ? specifier.split('/').slice(0, 2).join('/')
            : specifier.split('/')[0]
          assert.ok(name && name in dependencies, `${file} imports ${specifier}, not a dependency`)
        }
      }
    }
    visit(join(installed, 'dist', 'client', 'index.d.ts'))
    assert.ok(seen.size > 5, 'the declarations of the client and the contract were followed')
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
    const options = [
      '--ignoreConfig',
      '--noEmit',
      '--strict',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--types',
      'node',
      '--typeRoots',
      join(root, 'node_modules', '@types'),
    ]
    writeFileSync(
      join(app, 'right.ts'),
      `import { EventServiceClient, type EventRepresentation, isPreconditionFailed } from 'event-resource-service/client'
const client = new EventServiceClient({ baseUrl: 'http://localhost:8080', credentials: { user: 'u', password: 'p' } })
export async function rename(id: number, title: string): Promise<EventRepresentation> {
  for await (const event of client.events.all({ perPage: 5, locationId: 1, q: 'x' })) console.log(event.title)
  const event = await client.events.get(id)
  try {
    return await client.events.patch(event, { title })
  } catch (error) {
    if (isPreconditionFailed(error)) return client.events.patch(await client.events.get(id), { title })
    throw error
  }
}
`,
    )
    writeFileSync(
      join(app, 'wrong.ts'),
      `import { EventServiceClient } from 'event-resource-service/client'
const client = new EventServiceClient({ baseUrl: 'http://localhost:8080' })
export async function wrong(): Promise<string> {
  const event = await client.events.get(1)
  return event.titel
}
`,
    )
    await run(tsc, [...options, 'right.ts'], { cwd: app, env: cleanEnv() })
    const refused = await run(tsc, [...options, 'wrong.ts'], { cwd: app, env: cleanEnv() }).then(
      () => assert.fail('tsc accepted a misspelt field'),
      (error: { stdout: string }) => error.stdout,
    )
    assert.match(refused, /wrong\.ts\(5,\d+\): error TS2551: Property 'titel' does not exist/)
  })
})

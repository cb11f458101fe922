// Packages as a user gets them: `npm pack`, then installed into an empty app without the network.
// The app's lockfile takes the project's own lock entries (exactly the tested versions, all in
// npm's cache since `npm ci`), each with its registry URL (the project's .npmrc may omit them),
// which lets `npm ci --offline` find them by integrity without asking the registry.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

export const run = promisify(execFile)
export const root = fileURLToPath(new URL('../..', import.meta.url))
const registry = 'https://registry.npmjs.org/'

type LockEntry = Record<string, unknown> & {
  version?: string
  resolved?: string
  dev?: boolean
  link?: boolean
  dependencies?: Record<string, string>
}
interface Manifest {
  name: string
  version: string
  license?: string
  dependencies?: Record<string, string>
  bin?: Record<string, string>
  engines?: Record<string, string>
  overrides?: Record<string, string>
}

/** The environment of npm and the tools it runs: none of the npm_* variables of an enclosing `npm test`. */
export const cleanEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')))

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T
const projectLock = () => readJson<{ packages: Record<string, LockEntry> }>(join(root, 'package-lock.json'))

/** A package of this repository (`.` or `packages/client`) as a tarball in `destination`. */
export async function pack(directory: string, destination: string) {
  // The build is already there: packing need not run `prepare` again.
  const packed = await run(
    'npm',
    ['pack', '--ignore-scripts', '--silent', '--pack-destination', destination],
    {
      cwd: join(root, directory),
      env: cleanEnv(),
    },
  )
  const tarball = join(destination, packed.stdout.trim().split('\n').at(-1) ?? '')
  const manifest = readJson<Manifest>(join(root, directory, 'package.json'))
  return { tarball, manifest, spec: `file:${tarball}` }
}
export type Packed = Awaited<ReturnType<typeof pack>>

/** The app's lock entry of a packed tarball. */
function tarballEntry({ tarball, manifest, spec }: Packed): LockEntry {
  return {
    version: manifest.version,
    resolved: spec,
    integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
    license: manifest.license,
    dependencies: manifest.dependencies,
    bin: manifest.bin,
    engines: manifest.engines,
  }
}

/** The project's lock entries of `names` and of everything they depend on (as npm hoisted them). */
function closure(names: Iterable<string>, skip: ReadonlySet<string>): Record<string, LockEntry> {
  const { packages } = projectLock()
  const found: Record<string, LockEntry> = {}
  const queue = [...names]
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const path = `node_modules/${name}`
    if (skip.has(name) || found[path]) continue
    const entry = packages[path]
    assert.ok(entry && !entry.link, `${name} is not in package-lock.json as an installed package`)
    found[path] = withRegistryUrl(path, entry)
    queue.push(...Object.keys(entry.dependencies ?? {}))
    // Nested copies (another version under this package) come along with it, and what they need.
    for (const [nested, nestedEntry] of Object.entries(packages)) {
      if (!nested.startsWith(`${path}/node_modules/`)) continue
      found[nested] = withRegistryUrl(nested, nestedEntry)
      queue.push(...Object.keys(nestedEntry.dependencies ?? {}))
    }
  }
  return found
}

function withRegistryUrl(path: string, entry: LockEntry): LockEntry {
  const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
  const file = `${name.split('/').at(-1)}-${entry.version}.tgz`
  return { ...entry, resolved: entry.resolved ?? `${registry}${name}/-/${file}` }
}

/** Every runtime package of the project's lock (optional, platform-specific ones too). */
function runtimePackages(skip: ReadonlySet<string>): Record<string, LockEntry> {
  const found: Record<string, LockEntry> = {}
  for (const [path, entry] of Object.entries(projectLock().packages)) {
    if (!path.startsWith('node_modules/') || entry.dev || entry.link) continue
    if (skip.has(path.slice('node_modules/'.length))) continue
    found[path] = withRegistryUrl(path, entry)
  }
  return found
}

/**
 * Writes an app (package.json and lockfile) that depends on the packed tarballs alone; the other
 * packages come from the project's lock: what the tarballs' dependencies reach, or (`runtime`)
 * every package the project runs with, optional ones included, as the server needs.
 */
export function writeApp(
  app: string,
  tarballs: readonly Packed[],
  { runtime = false, overrides }: { runtime?: boolean; overrides?: Record<string, string> } = {},
) {
  const dependencies = Object.fromEntries(tarballs.map((t) => [t.manifest.name, t.spec]))
  const ours = new Set(tarballs.map((t) => t.manifest.name))
  const packages: Record<string, LockEntry> = {
    '': { name: 'app', version: '1.0.0', dependencies },
    ...Object.fromEntries(tarballs.map((t) => [`node_modules/${t.manifest.name}`, tarballEntry(t)])),
    ...(runtime
      ? runtimePackages(ours)
      : closure(
          tarballs.flatMap((t) => Object.keys(t.manifest.dependencies ?? {})),
          ours,
        )),
  }
  const manifest = { name: 'app', version: '1.0.0', private: true, type: 'module', dependencies, overrides }
  writeFileSync(join(app, 'package.json'), JSON.stringify(manifest, null, 2))
  const lock = { name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages }
  writeFileSync(join(app, 'package-lock.json'), JSON.stringify(lock, null, 2))
}

/** `npm ci --offline` in `app`; how long it took. */
export async function installOffline(app: string, { ignoreScripts }: { ignoreScripts: boolean }) {
  const started = performance.now()
  const flags = ['ci', '--offline', '--no-audit', '--no-fund', '--loglevel=error']
  const result = await run('npm', ignoreScripts ? [...flags, '--ignore-scripts'] : flags, {
    cwd: app,
    env: cleanEnv(),
  })
  return { ms: performance.now() - started, ...result }
}

/** Every installed package.json under `nodeModules` (scoped and nested ones too). */
export function installedManifests(
  nodeModules: string,
): { path: string; manifest: Manifest & Record<string, unknown> }[] {
  const found: { path: string; manifest: Manifest & Record<string, unknown> }[] = []
  const visit = (dir: string) => {
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      if (name.startsWith('.')) continue
      if (name.startsWith('@')) {
        visit(join(dir, name))
        continue
      }
      const path = join(dir, name)
      if (existsSync(join(path, 'package.json')))
        found.push({ path, manifest: readJson(join(path, 'package.json')) })
      visit(join(path, 'node_modules'))
    }
  }
  visit(nodeModules)
  return found
}

/** The size of a directory on disk, as `du -sk` counts it, in bytes. */
export async function diskUsage(dir: string): Promise<number> {
  const { stdout } = await run('du', ['-sk', dir])
  return Number(stdout.split('\t')[0]) * 1024
}

/**
 * Follows the declarations from `entry`: each relative import names a shipped .d.ts, each bare
 * one a dependency of `installed` (or node:). Returns how many files it read.
 */
export function checkDeclarations(installed: string, entry: string): number {
  const { dependencies = {} } = readJson<Manifest>(join(installed, 'package.json'))
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
  visit(join(installed, entry))
  return seen.size
}

/** tsc's options for an app's own files, and where to find @types/node. */
export const tscOptions = [
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
export const tsc = join(root, 'node_modules', '.bin', 'tsc')

/**
 * Type-checks, in `app`, code that uses the client as a user would (from `module`, and its types
 * from `contract` when given), and code that misspells a field, which tsc must refuse.
 */
export async function typeCheckClientUse(app: string, module: string, contract?: string): Promise<void> {
  const contractUse = contract
    ? `import type { LocationCreate, Problem } from '${contract}'
export const hall: LocationCreate = { name: 'Hall', address: '1 Main St' }
export const status = (problem: Problem): number => problem.status
`
    : ''
  writeFileSync(
    join(app, 'right.ts'),
    `import { EventServiceClient, type EventRepresentation, isPreconditionFailed } from '${module}'
${contractUse}const client = new EventServiceClient({ baseUrl: 'http://localhost:8080', credentials: { user: 'u', password: 'p' } })
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
    `import { EventServiceClient } from '${module}'
const client = new EventServiceClient({ baseUrl: 'http://localhost:8080' })
export async function wrong(): Promise<string> {
  const event = await client.events.get(1)
  return event.titel
}
`,
  )
  await run(tsc, [...tscOptions, 'right.ts'], { cwd: app, env: cleanEnv() })
  const refused = await run(tsc, [...tscOptions, 'wrong.ts'], { cwd: app, env: cleanEnv() }).then(
    () => assert.fail('tsc accepted a misspelt field'),
    (error: { stdout: string }) => error.stdout,
  )
  assert.match(refused, /wrong\.ts\(5,\d+\): error TS2551: Property 'titel' does not exist/)
}

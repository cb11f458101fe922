#!/usr/bin/env node
// Part of `npm ci` (the `prepare` script) and of `npm run bench`: runs `npm run build` only when a
// build is missing or older than a source it is made from, and otherwise does nothing.
//
// Why not build every time: npm runs `prepare` again whenever it links this directory as a
// package, and `npx ers` in a checkout does exactly that the first time (it installs `file:.` into
// npx's cache). A build then rewrote dist/ under whatever was running from it, and a process that
// loaded a module tsc had just emptied failed with "does not provide an export named …".
//
// Written in plain JavaScript that Node 20 runs: `prepare` runs it on the machine's own Node.
import { execFileSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** What a build reads: the sources of the service and of the client package, and their settings. */
const inputs = [
  'src',
  'packages/client/src',
  'tsconfig.json',
  'tsconfig.build.json',
  'packages/client/tsconfig.json',
]
/** What a build writes last of each package, or the build is missing. */
const outputs = ['dist/main.js', 'dist/cli/main.js', 'packages/client/dist/index.js']

const modified = (path) => {
  try {
    return statSync(path).mtimeMs
  } catch {
    return undefined
  }
}

function newest(path) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let found = 0
  for (const entry of readdirSync(path)) found = Math.max(found, newest(join(path, entry)))
  return found
}

const built = outputs.map((path) => modified(join(root, path)))
const oldest = built.includes(undefined) ? undefined : Math.min(...built)
const say = (line) => process.stderr.write(`build: ${line}\n`)

if (oldest !== undefined && oldest >= Math.max(...inputs.map((path) => newest(join(root, path))))) {
  say('dist/ is up to date with the sources; not rebuilt')
} else {
  say(
    oldest === undefined
      ? 'dist/ is missing: npm run build'
      : 'dist/ is older than the sources: npm run build',
  )
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
}

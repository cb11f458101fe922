// Imports run one way (docs/architecture.md): no module of src/ or of the client package reaches
// itself again through the relative imports it makes, type-only imports included.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') ? [resolve(path)] : []
  })
}

/** The groups of modules that import each other in a circle (Tarjan's strongly connected components). */
function circles(files: readonly string[]): string[][] {
  const known = new Set(files)
  const edges = new Map(
    files.map((file) => {
      const text = readFileSync(file, 'utf8')
      const targets = [...text.matchAll(/^(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/gm)]
        .map((match) => resolve(dirname(file), match[1] as string))
        .filter((target) => known.has(target))
      return [file, targets] as const
    }),
  )
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const found: string[][] = []
  const visit = (file: string) => {
    index.set(file, counter)
    low.set(file, counter++)
    stack.push(file)
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number))
      } else if (stack.includes(target))
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number))
    }
    if (low.get(file) !== index.get(file)) return
    const group: string[] = []
    let member: string | undefined
    do {
      member = stack.pop() as string
      group.push(relative(root, member))
    } while (member !== file)
    if (group.length > 1) found.push(group)
  }
  for (const file of files) if (!index.has(file)) visit(file)
  return found
}

describe('imports', () => {
  it('make no circle in src/ or in the client package', () => {
    for (const dir of ['src', 'packages/client/src']) {
      assert.deepEqual(circles(sources(join(root, dir))), [], `import circles in ${dir}`)
    }
  })
})

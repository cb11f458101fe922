// bench/write-cost.ts still runs: a tiny database, a few writes per configuration, every index and
// trigger the catalog lists taken away in turn, the bare table, the result file. Never a speed:
// the figures of so few writes on a shared machine mean nothing.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import type { SchemaPart } from '../../bench/write-cost/catalog.ts'
import type { Summary } from '../../bench/write-cost/report.ts'
import { runScriptWithResults } from '../support/process.ts'
import { postgresSkipReason } from '../support/stores.ts'

interface WriteCostResult {
  readonly store: string
  readonly tables: string[]
  readonly parts: SchemaPart[]
  readonly configurations: Summary[]
}

async function smoke(args: string[]): Promise<{ result: WriteCostResult; output: string }> {
  return runScriptWithResults(
    'bench/write-cost.ts',
    ['--events', '200', '--writes', '3', '--batches', '2', '--rounds', '1', ...args],
    (dir, files, output) => {
      assert.equal(files.length, 1, files.join(', '))
      return {
        result: JSON.parse(readFileSync(join(dir, files[0] as string), 'utf8')) as WriteCostResult,
        output,
      }
    },
  )
}

function assertComplete({ result, output }: Awaited<ReturnType<typeof smoke>>, store: string) {
  assert.equal(result.store, store)
  // The search index's and the counts' tables are found through the triggers, not named.
  for (const table of ['events', 'change_log', 'counters', 'event_buckets'])
    assert.ok(result.tables.includes(table), `${table} among ${result.tables.join(', ')}`)
  const names = result.parts.map((part) => part.name)
  for (const name of ['events_by_date', 'events_by_location_date', 'events_bucket_move'])
    assert.ok(names.includes(name), `${name} among ${names.join(', ')}`)
  const byName = new Map(result.configurations.map((c) => [c.name, c]))
  for (const name of [
    'full schema',
    'full schema, a second copy',
    'bare table',
    'minus index events_by_date',
  ]) {
    const configuration = byName.get(name)
    assert.ok(configuration?.put && configuration.post, `${name}: ${configuration?.failed ?? 'missing'}`)
    assert.ok(configuration.put.wallUs > 0 && configuration.post.cpuUs > 0, name)
  }
  // Every part has its row: measured, or why not.
  assert.equal(result.configurations.length, result.parts.length + 3)
  assert.match(output, /\| bare table \| \d+ \|/)
}

describe('bench/write-cost.ts', () => {
  it('measures every part of the schema on SQLite', async () => {
    assertComplete(await smoke(['--store', 'sqlite']), 'sqlite')
  })

  it('measures every part of the schema on PostgreSQL', { skip: postgresSkipReason }, async () => {
    const url = process.env.DATABASE_URL_TEST_PG as string
    const smoked = await smoke(['--store', 'postgres', '--database-url', url])
    assertComplete(smoked, 'postgres')
    assert.ok(smoked.result.parts.some((part) => part.kind === 'foreign key'))
  })
})

// Imports beside live writes (docs/architecture.md): on PostgreSQL `ers import` of 200,000 events
// runs while 8 clients create and replace events through the service. None of their writes may
// be answered 5xx, and the answers are counted per second of the import: a second without any
// would mean every write waited on the import (before migration 0009 the import held a counter
// shard and bucket rows for its whole transaction, and a create in 16 waited until its timeout).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { writeImportFile } from '../../bench/dataset.ts'
import { runCli, type ServerProcess, startServerProcess } from '../support/process.ts'
import { basic, send } from '../support/service.ts'
import { postgres, postgresSkipReason } from '../support/stores.ts'

const events = 200_000
const clients = 8
const admin = basic('admin', 'admin-password-1')
const eventType = 'application/vnd.service.event+json'

describe('[postgres] an import beside live writes', { skip: postgresSkipReason ?? false }, () => {
  let database: { databaseUrl: string; drop(): Promise<void> }
  let server: ServerProcess
  let dir: string

  before(async () => {
    database = await (postgres as NonNullable<typeof postgres>).create()
    dir = mkdtempSync(join(tmpdir(), 'ers-import-flood-'))
    server = await startServerProcess({
      DATABASE_URL: database.databaseUrl,
      SEED: 'true',
      ADMIN_PASSWORD: 'admin-password-1',
      RATE_LIMIT_READS: '0',
      RATE_LIMIT_WRITES: '0',
      ACCESS_LOG: 'false',
    })
  })
  after(async () => {
    server?.child.kill('SIGTERM')
    await server?.exited
    await database?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers every create and PUT, none 5xx, in every second of the import', async (t) => {
    const file = join(dir, 'events.json')
    await writeImportFile(file, events)
    const answers: { at: number; status: number; what: string }[] = []
    let importing = true
    const started = performance.now()
    const client = async (c: number) => {
      for (let i = 0; importing; i++) {
        const date = Date.UTC(2028, 0, 1) + ((c * 7_919 + i * 104_729) % 5_000) * 3_600_000
        const created = await send(server.baseUrl, 'POST', '/events', {
          headers: { authorization: admin, 'content-type': eventType },
          body: { title: `live ${c}-${i}`, date: new Date(date).toISOString(), location_id: 1 },
        })
        answers.push({ at: performance.now(), status: created.status, what: `POST ${created.text}` })
        if (created.status !== 201) continue
        const replaced = await send(server.baseUrl, 'PUT', `/events/${created.json().id}`, {
          headers: { authorization: admin, 'content-type': eventType },
          body: { title: `live ${c}-${i} moved`, date: new Date(date + 40 * 86_400_000).toISOString() },
        })
        answers.push({ at: performance.now(), status: replaced.status, what: `PUT ${replaced.text}` })
      }
    }
    const loops = Array.from({ length: clients }, (_, c) => client(c))
    const imported = await runCli(['import', file], { DATABASE_URL: database.databaseUrl })
    const seconds = Math.floor((performance.now() - started) / 1000)
    importing = false
    await Promise.all(loops)

    assert.equal(imported.code, 0, imported.stderr)
    assert.match(imported.stdout, new RegExp(`and ${events} events`))
    const failed = answers.filter((a) => a.status >= 500 || a.status === 0)
    assert.deepEqual(failed.slice(0, 5), [], `${failed.length} of ${answers.length} writes failed`)
    assert.deepEqual(
      answers.filter((a) => a.status !== 200 && a.status !== 201).slice(0, 5),
      [],
      'every write succeeded',
    )
    const perSecond = new Array(seconds).fill(0) as number[]
    for (const a of answers) {
      const s = Math.floor((a.at - started) / 1000)
      if (s < seconds) perSecond[s] = (perSecond[s] as number) + 1
    }
    t.diagnostic(
      `${answers.length} writes in ${seconds} s of import; answers per second: ${perSecond.join(' ')}`,
    )
    assert.deepEqual(
      perSecond.flatMap((n, s) => (n === 0 ? [s] : [])),
      [],
      'seconds of the import in which no write was answered',
    )
    const [total] = [(await send(server.baseUrl, 'GET', '/events?per_page=1')).json().total]
    assert.equal(total, 32 + events + answers.filter((a) => a.status === 201).length)
  })
})

import assert from 'node:assert/strict'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import Sqlite from 'better-sqlite3'
import { openStore } from '../../src/store/open-store.ts'
import { runCli, startServerProcess } from '../support/process.ts'
import { basic, send } from '../support/service.ts'

// `ers backup` copies SQLite files only (PostgreSQL has pg_dump; cli.test.ts checks the advice).
describe('[sqlite] ers backup beside a running server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ers-backup-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('copies, while the server writes, a sound database with every write acknowledged before it began, which a restored server serves', async () => {
    const databasePath = join(dir, 'events.db')
    const settings = {
      DATABASE_URL: `sqlite:${databasePath}`,
      SEED: 'false',
      ADMIN_PASSWORD: 'backup-password-1',
    }
    const server = await startServerProcess(settings)
    const headers = { 'content-type': 'application/json', authorization: basic('admin', 'backup-password-1') }
    // Locations are not writable over HTTP: make one through the store, as the CLI would.
    const direct = openStore(settings.DATABASE_URL)
    const { id: locationId } = await direct.createLocation({ name: 'Backup hall', address: '1 Copy Lane' })
    await direct.close()

    const acknowledged: number[] = []
    const waiting: { count: number; resolve: () => void }[] = []
    const acknowledge = (id: number) => {
      acknowledged.push(id)
      for (const w of waiting.filter((w) => acknowledged.length >= w.count)) w.resolve()
    }
    let failure: unknown
    /** Resolves once `count` writes are acknowledged; throws if a writer failed meanwhile. */
    const reach = async (count: number) => {
      await new Promise<void>((resolve) => {
        if (acknowledged.length >= count || failure) resolve()
        else waiting.push({ count, resolve })
      })
      if (failure) throw failure
    }
    let stop = false
    const writer = async (w: number) => {
      try {
        for (let i = 0; !stop; i++) {
          const res = await send(server.baseUrl, 'POST', '/events', {
            headers,
            body: { title: `writer ${w} #${i}`, date: '2027-01-01T00:00:00Z', location_id: locationId },
          })
          // Every write must succeed: the backup holds no lock the server waits for.
          assert.equal(res.status, 201, res.text)
          acknowledge(res.json().id)
        }
      } catch (error) {
        failure = error
        for (const w of waiting) w.resolve()
      }
    }
    const writers = [0, 1].map(writer)
    await reach(50)

    const before = [...acknowledged]
    const file = join(dir, 'copy.db')
    const backup = await runCli(['backup', file], settings)
    const afterBackup = acknowledged.length
    assert.equal(backup.code, 0, backup.stderr)
    // The server kept writing while the CLI started and copied.
    assert.ok(
      afterBackup > before.length,
      `writes went on during the backup (${before.length} → ${afterBackup})`,
    )
    await reach(afterBackup + 10)
    stop = true
    await Promise.all(writers)
    if (failure) throw failure

    const copy = new Sqlite(file, { readonly: true, fileMustExist: true })
    let copied: Set<number>
    try {
      assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok')
      assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete', 'one self-contained file')
      const rows = copy.prepare('select id from events').all() as { id: number }[]
      copied = new Set(rows.map((r) => r.id))
    } finally {
      copy.close()
    }
    for (const id of before)
      assert.ok(copied.has(id), `event ${id}, acknowledged before the backup, is in it`)
    assert.ok(copied.size <= afterBackup + 2, 'at most the writes in flight when it ended are extra')
    assert.ok(copied.size < acknowledged.length, 'writes after the backup are not in it')

    // Restore as docs/operations.md says: stop, put the copy in place, remove the old WAL files, start.
    server.child.kill('SIGTERM')
    assert.equal((await server.exited).code, 0)
    copyFileSync(file, databasePath)
    rmSync(`${databasePath}-wal`, { force: true })
    rmSync(`${databasePath}-shm`, { force: true })
    const restored = await startServerProcess(settings)
    try {
      const list = await send(restored.baseUrl, 'GET', '/events?per_page=1')
      assert.equal(list.json().total, copied.size)
      for (const id of [before[0], before.at(-1)]) {
        assert.equal((await send(restored.baseUrl, 'GET', `/events/${id}`)).status, 200, `event ${id}`)
      }
      const lost = acknowledged.at(-1)
      assert.equal(
        (await send(restored.baseUrl, 'GET', `/events/${lost}`)).status,
        404,
        'later writes are gone',
      )
      const created = await send(restored.baseUrl, 'POST', '/events', {
        headers,
        body: { title: 'after the restore', date: '2027-01-02T00:00:00Z', location_id: locationId },
      })
      assert.equal(created.status, 201, 'the restored database takes writes')
    } finally {
      restored.child.kill('SIGTERM')
      assert.equal((await restored.exited).code, 0)
    }
  })
})

// SQLite's hot reads run at once, past Kysely's connection mutex (dialects/sqlite-driver.ts
// readNow). That is only right while no write transaction is open on the connection: between a
// write's statements (which await) a read from elsewhere must neither see its uncommitted rows nor
// become part of it. These tests hold a write open and read through the store meanwhile.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { openSqlite } from '../../src/store/dialects/sqlite.ts'
import { KyselyStore } from '../../src/store/kysely-store.ts'

describe('[sqlite] hot reads beside an open write transaction', () => {
  let dir: string
  let store: KyselyStore
  let connection: ReturnType<typeof openSqlite>
  let eventId: number

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ers-read-now-'))
    connection = openSqlite(join(dir, 'events.db'))
    store = new KyselyStore(connection)
    await store.migrate()
    const location = await store.createLocation({ name: 'Hall', address: '1 Street' })
    eventId = (
      await store.createEvent({ title: 'Before', date: Date.UTC(2027, 0, 1), locationId: location.id })
    ).id
  })
  after(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('reads the committed row at once when no transaction is open', async () => {
    const query = { sql: 'select title from events where id = ?', parameters: [eventId], query: undefined }
    assert.deepEqual(connection.readNow?.(query as never), [{ title: 'Before' }])
    assert.equal((await store.getEvent(eventId))?.title, 'Before')
  })

  it('declines while a write transaction is open, so reads neither see nor join it', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let opened!: () => void
    const isOpen = new Promise<void>((resolve) => {
      opened = resolve
    })
    const write = connection.write(async (trx) => {
      await trx.updateTable('events').set({ title: 'Uncommitted' }).where('id', '=', eventId).execute()
      opened()
      await held
      throw new Error('rolled back on purpose')
    })
    await isOpen
    const query = { sql: 'select title from events where id = ?', parameters: [eventId], query: undefined }
    assert.equal(connection.readNow?.(query as never), undefined, 'no read at once inside the write')
    // The store's read waits for the connection instead, and sees the row as committed.
    const reading = store.getEvent(eventId)
    release()
    await assert.rejects(write, /rolled back on purpose/)
    assert.equal((await reading)?.title, 'Before')
    assert.equal((await store.getEvent(eventId))?.title, 'Before')
  })
})

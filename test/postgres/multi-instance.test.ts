// CONTRACT.md §8: any number of instances can serve one PostgreSQL database, and nothing that
// correctness needs lives in one process's memory. Three real server processes start at the same
// moment against one new database and then share the work.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { migrations } from '../../src/store/migrations/index.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { basic, type Response, send } from '../support/service.ts'
import { postgres, postgresSkipReason } from '../support/stores.ts'

const adminPassword = 'admin-password-1'
const admin = basic('admin', adminPassword)
const eventType = 'application/vnd.service.event+json'

describe('[postgres] three server processes on one database', { skip: postgresSkipReason ?? false }, () => {
  let database: { databaseUrl: string; drop(): Promise<void> }
  let instances: ServerProcess[] = []
  let sqlClient: pg.Client
  const on = (n: number) => instances[n % instances.length] as ServerProcess
  const request = (
    n: number,
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: unknown,
  ) => send(on(n).baseUrl, method, path, { headers, ...(body !== undefined && { body }) })
  const write = (
    n: number,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => request(n, method, path, { authorization: admin, 'content-type': eventType, ...headers }, body)
  /** How many of the processes logged `message` while starting. */
  const logged = (message: string) => instances.filter((i) => i.output().includes(message)).length

  before(async () => {
    if (!postgres) return
    database = await postgres.create()
    const env = { DATABASE_URL: database.databaseUrl, SEED: 'true', ADMIN_PASSWORD: adminPassword }
    instances = await Promise.all([0, 1, 2].map(() => startServerProcess(env)))
    sqlClient = new pg.Client({ connectionString: database.databaseUrl, connectionTimeoutMillis: 3_000 })
    await sqlClient.connect()
  })

  after(async () => {
    await sqlClient?.end()
    for (const instance of instances) instance.child.kill('SIGTERM')
    const exits = await Promise.all(instances.map((i) => i.exited))
    await database?.drop()
    assert.deepEqual(
      exits.map((e) => e.code),
      instances.map(() => 0),
    )
  })

  const count = async (query: string) => Number((await sqlClient.query(query)).rows[0]?.n)

  it('applies the migrations exactly once', async () => {
    assert.equal(logged('database migrated'), 1)
    // Every migration the service knows, each recorded once.
    const known = await migrations({ schema: 'postgres' }).getMigrations()
    assert.equal(await count('select count(*) as n from kysely_migration'), Object.keys(known).length)
  })

  it('seeds the sample data exactly once', async () => {
    assert.equal(logged('filled with sample data'), 1)
    assert.equal(await count('select count(*) as n from locations'), 4)
    for (const n of [0, 1, 2]) {
      const res = await request(n, 'GET', '/events?per_page=1')
      assert.equal(res.status, 200)
      assert.equal(res.json().total, 32)
    }
  })

  it('creates exactly one admin', async () => {
    assert.equal(logged('created user'), 1)
    assert.equal(await count('select count(*) as n from users'), 1)
    assert.equal(await count(`select count(*) as n from users where name = 'admin' and role = 'editor'`), 1)
  })

  it('shows a write made through instance A when read through instance B', async () => {
    const created = await write(0, 'POST', '/events', {
      title: 'Written through A',
      date: '2027-03-01T18:00:00Z',
      location_id: 1,
    })
    assert.equal(created.status, 201)
    const location = created.header('location') as string
    const read = await request(1, 'GET', location)
    assert.equal(read.status, 200)
    assert.deepEqual(read.json(), created.json())

    const updated = await write(
      1,
      'PATCH',
      location,
      { title: 'Edited through B' },
      {
        'content-type': 'application/merge-patch+json',
      },
    )
    assert.equal(updated.status, 200)
    const again = await request(2, 'GET', location)
    assert.equal(again.json().title, 'Edited through B')
    assert.equal(again.header('etag'), updated.header('etag'))
  })

  it('lets exactly one of ten concurrent PUTs with the same If-Match win, across instances', async () => {
    const current = await request(0, 'GET', '/events/5')
    assert.equal(current.status, 200)
    const etag = current.header('etag') as string
    const date = current.json().date as string
    const results: Response[] = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        write(n, 'PUT', '/events/5', { title: `Contender ${n}`, date }, { 'if-match': etag }),
      ),
    )
    const statuses = results.map((r) => r.status).sort()
    assert.deepEqual(statuses, [200, 412, 412, 412, 412, 412, 412, 412, 412, 412])
    const winner = results.find((r) => r.status === 200) as Response
    const after = await request(2, 'GET', '/events/5')
    assert.equal(after.json().title, winner.json().title)
    assert.equal(after.header('etag'), winner.header('etag'))
    assert.notEqual(after.header('etag'), etag)
  })

  it('never hands out the id of a deleted event again, whichever instance creates', async () => {
    const body = { title: 'Short-lived', date: '2027-04-01T10:00:00Z', location_id: 2 }
    const first = await write(0, 'POST', '/events', body)
    assert.equal(first.status, 201)
    const id = first.json().id as number
    assert.equal((await write(1, 'DELETE', `/events/${id}`)).status, 204)
    assert.equal((await request(2, 'GET', `/events/${id}`)).status, 404)
    const created = await Promise.all([0, 1, 2].map((n) => write(n, 'POST', '/events', body)))
    const ids = created.map((r) => r.json().id as number)
    assert.equal(new Set(ids).size, 3)
    for (const next of ids) assert.ok(next > id, `id ${next} was handed out after ${id} was deleted`)
  })

  it('creates one event for ten concurrent POSTs with one Idempotency-Key spread over the instances', async () => {
    const before = await count('select count(*) as n from events')
    const body = { title: 'Exactly once', date: '2027-05-01T10:00:00Z', location_id: 3 }
    const results: Response[] = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        write(n, 'POST', '/events', body, { 'idempotency-key': 'multi-1' }),
      ),
    )
    assert.deepEqual(
      results.map((r) => r.status),
      Array(10).fill(201),
    )
    const first = results[0] as Response
    for (const r of results) {
      assert.equal(r.text, first.text)
      assert.equal(r.header('location'), first.header('location'))
      assert.equal(r.header('etag'), first.header('etag'))
    }
    assert.equal(await count('select count(*) as n from events'), before + 1)
  })
})

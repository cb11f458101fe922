// CONTRACT.md §5: when the database is unreachable, requests fail fast with 503 + Retry-After,
// readiness says so while liveness stays up, and service resumes by itself once the database is
// back. A TCP proxy between service and database is cut and restored; the machine's own
// PostgreSQL is never touched.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.ts'
import { parseConfig } from '../../src/config.ts'
import { prepareDatabase } from '../../src/prepare.ts'
import type { KyselyStore } from '../../src/store/kysely-store.ts'
import { openStore, storeOptions } from '../../src/store/open-store.ts'
import { basic, send } from '../support/service.ts'
import { postgres, postgresSkipReason } from '../support/stores.ts'
import { proxyDatabase, type TcpProxy } from '../support/tcp-proxy.ts'

const admin = basic('admin', 'admin-password-1')

describe('[postgres] through a database outage', { skip: postgresSkipReason ?? false }, () => {
  let database: { databaseUrl: string; drop(): Promise<void> }
  let proxy: TcpProxy
  let store: KyselyStore
  let app: FastifyInstance
  let baseUrl: string

  before(async () => {
    if (!postgres) return
    database = await postgres.create()
    const proxied = await proxyDatabase(database.databaseUrl)
    proxy = proxied.proxy
    const { viaProxy } = proxied
    const config = parseConfig({
      logLevel: 'silent',
      seed: 'true',
      databaseUrl: viaProxy,
      dbConnectTimeoutMs: '500',
      dbStatementTimeoutMs: '2000',
    })
    store = openStore(config.databaseUrl, storeOptions(config))
    await prepareDatabase(store, { ...config, adminPassword: 'admin-password-1' })
    app = buildApp({ config, store })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address()
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  })

  after(async () => {
    await app?.close()
    await store?.close()
    await proxy?.close()
    await database?.drop()
  })

  const get = (path: string) => send(baseUrl, 'GET', path)

  async function assertUnavailable(path: string) {
    const res = await get(path)
    assert.equal(res.status, 503, `${path}: ${res.text}`)
    assert.equal(res.header('retry-after'), '5')
    assert.equal(res.header('content-type'), 'application/problem+json')
    assert.equal(res.json().status, 503)
    assert.doesNotMatch(res.text, /ECONN|127\.0\.0\.1|timeout exceeded|pg_|SELECT/i)
  }

  /** Polls readiness (no fixed sleep) until the database answers again, within a bound. */
  async function untilReady() {
    for (let attempt = 0; attempt < 200; attempt++) {
      if ((await get('/health/ready')).status === 200) return attempt
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.fail('the service did not become ready again after the database came back')
  }

  it('serves normally while the database is reachable', async () => {
    assert.equal((await get('/events')).status, 200)
    assert.equal((await get('/health/ready')).status, 200)
  })

  it('answers 503 at once when connections are refused, stays live, and recovers by itself', async () => {
    await proxy.cut('refuse')
    await assertUnavailable('/events')
    await assertUnavailable('/events/1')
    await assertUnavailable('/health/ready')
    assert.equal((await get('/health/live')).status, 200)
    const write = await send(baseUrl, 'PATCH', '/events/1', {
      headers: { authorization: admin, 'content-type': 'application/merge-patch+json' },
      body: { title: 'During the outage' },
    })
    assert.equal(write.status, 503)

    await proxy.restore()
    await untilReady()
    const event = await get('/events/1')
    assert.equal(event.status, 200)
    assert.notEqual(event.json().title, 'During the outage')
  })

  it('answers 503 when the database accepts connections but never answers, then recovers', async () => {
    await proxy.cut('hang')
    await assertUnavailable('/events')
    await assertUnavailable('/health/ready')
    assert.equal((await get('/health/live')).status, 200)
    await proxy.restore()
    await untilReady()
    const created = await send(baseUrl, 'POST', '/events', {
      headers: { authorization: admin, 'content-type': 'application/json' },
      body: { title: 'After the outage', date: '2027-01-01T00:00:00Z', location_id: 1 },
    })
    assert.equal(created.status, 201)
  })
})

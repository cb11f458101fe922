import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { openStore } from '../../src/store/open-store.ts'
import { connectionRefused, poll, requestInFlight, startServerProcess } from '../support/process.ts'
import { basic, send } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const adminPassword = 'first-run-password'
const admin = basic('admin', adminPassword)
const json = { 'content-type': 'application/json' }

for (const target of storeTargets) {
  describe(`[${target.name}] the server process`, () => {
    // Each test has a database of its own, dropped at the end.
    const drops: (() => Promise<void>)[] = []
    const database = async () => {
      const made = await target.create()
      drops.push(made.drop)
      return { DATABASE_URL: made.databaseUrl }
    }
    after(async () => {
      for (const drop of drops) await drop()
    })
    /** The environment of a server on a database of its own, without samples, with a known admin password. */
    const unseeded = async () => ({ ...(await database()), SEED: 'false', ADMIN_PASSWORD: adminPassword })

    it('on first start migrates, seeds samples and prints a generated admin password once', async () => {
      const first = await database()
      const server = await startServerProcess(first)
      const password = /with password: (\S+)/.exec(server.output())?.[1]
      assert.ok(password, server.output())
      const list = await send(server.baseUrl, 'GET', '/events')
      assert.equal(list.json().total, 32)
      const created = await send(server.baseUrl, 'POST', '/events', {
        headers: { ...json, authorization: basic('admin', password) },
        body: { title: 'With the printed password', date: '2027-01-01T00:00:00Z', location_id: 1 },
      })
      assert.equal(created.status, 201)
      assert.equal(server.output().split(password).length - 1, 1, 'the password is printed exactly once')
      server.child.kill('SIGTERM')
      assert.deepEqual(await server.exited, { code: 0, signal: null })

      const again = await startServerProcess(first)
      assert.doesNotMatch(again.output(), /with password/)
      assert.equal((await send(again.baseUrl, 'GET', '/events')).json().total, 33, 'seeded once, write kept')
      again.child.kill('SIGTERM')
      assert.equal((await again.exited).code, 0)
    })

    it('with SEED=false starts empty and uses ADMIN_PASSWORD', async () => {
      const server = await startServerProcess(await unseeded())
      assert.doesNotMatch(server.output(), /with password/)
      assert.equal((await send(server.baseUrl, 'GET', '/events')).json().total, 0)
      const denied = await send(server.baseUrl, 'DELETE', '/events/1', {
        headers: { authorization: basic('admin', 'wrong') },
      })
      assert.equal(denied.status, 401)
      const missing = await send(server.baseUrl, 'DELETE', '/events/1', { headers: { authorization: admin } })
      assert.equal(missing.status, 404)
      server.child.kill('SIGTERM')
      assert.equal((await server.exited).code, 0)
    })

    it('on SIGTERM finishes the request in flight, refuses new connections and exits 0', async () => {
      const server = await startServerProcess(await unseeded())
      await send(server.baseUrl, 'GET', '/health/live') // warm up: the first request compiles schemas
      const location = await send(server.baseUrl, 'GET', '/locations/1')
      assert.equal(location.status, 404)

      // A request whose body is still arriving when the signal comes.
      const inFlight = await requestInFlight(server)
      server.child.kill('SIGTERM')
      await poll(() => server.output().includes('shutting down'))
      // The log line comes just before the listener closes: wait for the refusal, which must come
      // while the request above still holds the drain open.
      while (!(await connectionRefused(server.baseUrl))) await new Promise((r) => setTimeout(r, 10))

      const answer = await inFlight.finish()
      assert.match(answer, /^HTTP\/1\.1 200 /)
      assert.match(answer, /"total":0/)
      assert.deepEqual(await server.exited, { code: 0, signal: null })
    })

    it('keeps every write it acknowledged when killed with SIGKILL in the middle of a stream of writes', async () => {
      const settings = await unseeded()
      const server = await startServerProcess(settings)
      const headers = { ...json, authorization: admin }
      await send(server.baseUrl, 'GET', '/health/live')
      // Locations are not writable over HTTP: make one through the store, as the CLI would.
      const direct = openStore(settings.DATABASE_URL)
      const { id: locationId } = await direct.createLocation({ name: 'Crash site', address: 'nowhere' })
      await direct.close()

      const acknowledged: number[] = []
      let stop = false
      const writer = async (w: number) => {
        for (let i = 0; !stop; i++) {
          try {
            const res = await send(server.baseUrl, 'POST', '/events', {
              headers,
              body: { title: `writer ${w} #${i}`, date: '2027-01-01T00:00:00Z', location_id: locationId },
            })
            if (res.status === 201) acknowledged.push(res.json().id)
          } catch {
            return // the connection died with the process
          }
        }
      }
      const writers = [0, 1, 2, 3].map(writer)
      while (acknowledged.length < 60) await new Promise((r) => setTimeout(r, 10))
      server.child.kill('SIGKILL')
      stop = true
      await Promise.all(writers)
      assert.equal((await server.exited).signal, 'SIGKILL')

      const restarted = await startServerProcess(settings)
      const all = await send(restarted.baseUrl, 'GET', '/events?per_page=100')
      const stored = new Map<number, string>()
      for (let page = 1; ; page++) {
        const res = await send(restarted.baseUrl, 'GET', `/events?page=${page}&per_page=100`)
        for (const event of res.json().events) stored.set(event.id, event.title)
        if (res.json().events.length < 100) break
      }
      assert.equal(stored.size, all.json().total)
      for (const id of acknowledged) assert.ok(stored.has(id), `acknowledged event ${id} survived`)
      // Nothing half-written: every stored event is complete.
      for (const title of stored.values()) assert.match(title, /^writer \d #\d+$/)
      assert.ok(stored.size <= acknowledged.length + 4, 'at most the in-flight writes are extra')
      restarted.child.kill('SIGTERM')
      assert.equal((await restarted.exited).code, 0)
    })
  })
}

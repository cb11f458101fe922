// Inputs that one database type accepts and another refuses must get the same answer from every
// store: here, what PostgreSQL's types are stricter about than SQLite's.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] values at the edges of the column types`, () => {
    let service: TestService
    const write = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      service.request(method, path, {
        headers: { authorization: service.editorAuth, 'content-type': 'application/json', ...headers },
        body,
      })

    before(async () => {
      service = await startService(target)
      await service.store.createLocation({ name: 'Hall', address: 'Street 1' })
      const res = await write('POST', '/events', {
        title: 'Edge',
        date: '2027-01-01T00:00:00Z',
        location_id: 1,
      })
      assert.equal(res.status, 201)
    })
    after(() => service.close())

    it('answers 412, not 500, to an If-Match naming a version beyond 32 bits', async () => {
      const res = await write(
        'PUT',
        '/events/1',
        { title: 'Never', date: '2027-01-01T00:00:00Z' },
        { 'if-match': '"v99999999999"' },
      )
      assert.equal(res.status, 412)
      assert.equal((await service.request('GET', '/events/1')).json().title, 'Edge')
    })

    it('answers 422 pointing at /title when a title contains U+0000', async () => {
      for (const [method, path, body] of [
        ['POST', '/events', { title: 'a\u0000b', date: '2027-01-01T00:00:00Z', location_id: 1 }],
        ['PUT', '/events/1', { title: 'a\u0000b', date: '2027-01-01T00:00:00Z' }],
      ] as const) {
        const res = await write(method, path, body)
        assert.equal(res.status, 422, method)
        assert.deepEqual(
          res.json().errors.map((e: { pointer: string }) => e.pointer),
          ['/title'],
          method,
        )
      }
    })

    it('keeps dates far from 1970 exact (stored as 64-bit milliseconds)', async () => {
      for (const date of ['0100-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z']) {
        const res = await write('POST', '/events', { title: 'Far', date, location_id: 1 })
        assert.equal(res.status, 201)
        assert.equal((await service.request('GET', res.header('location') as string)).json().date, date)
      }
    })
  })
}

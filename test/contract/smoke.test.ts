import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { contractService } from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] smoke`, () => {
    const ctx = contractService(target, { settings: { seed: 'true' }, location: false })

    it('lists the sample events with exact headers', async () => {
      const res = await ctx.service.request('GET', '/events', {
        headers: { accept: 'application/vnd.service.events+json', 'content-type': 'application/json' },
        body: { page: 1, per_page: 5 },
      })
      assert.equal(res.status, 200)
      assert.equal(res.header('content-type'), 'application/vnd.service.events+json')
      assert.equal(res.header('vary'), 'Accept, Accept-Encoding')
      assert.equal(Number(res.header('content-length')), Buffer.byteLength(res.text))
      const body = res.json()
      assert.deepEqual(Object.keys(body), ['total', 'events'])
      assert.equal(body.total, 32)
      assert.equal(body.events.length, 5)
    })
  })
}

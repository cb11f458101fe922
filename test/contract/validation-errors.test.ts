// CONTRACT.md §5: a validation failure lists every invalid field in `errors`, each with a JSON
// Pointer, in one response — the date rules included.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { contractService } from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] validation errors`, () => {
    const ctx = contractService(target, { settings: { seed: 'true' }, location: false })

    const put = (body: unknown) =>
      ctx.service.request('PUT', '/events/1', {
        headers: { authorization: ctx.service.editorAuth, 'content-type': 'application/json' },
        body,
      })

    it('reports an empty title and an impossible date together, and changes nothing', async () => {
      const before = (await ctx.service.request('GET', '/events/1')).text
      const res = await put({ title: '', date: '2026-02-30T00:00:00Z', colour: 'red' })
      assert.equal(res.status, 422)
      const pointers = new Set(res.json().errors.map((e: { pointer: string }) => e.pointer))
      assert.deepEqual([...pointers].sort(), ['/colour', '/date', '/title'])
      assert.equal((await ctx.service.request('GET', '/events/1')).text, before)
    })

    it('lists at most 32 field errors, however many fields are wrong (the document’s maxItems)', async () => {
      const body: Record<string, unknown> = { title: 'Fine', date: '2026-02-28T19:30:00Z' }
      for (let i = 0; i < 100; i++) body[`unknown${i}`] = i
      const res = await put(body)
      assert.equal(res.status, 422)
      assert.equal(res.json().errors.length, 32)
    })

    for (const date of [
      '2026-02-28 19:30:00Z',
      '2026-02-28T19:30:60Z',
      '2026-02-28T19:30:00+0100',
      '2026-02-28T19:30:00',
      '2026-02-28T19:30:00.1234Z',
      '0000-01-01T00:00:00Z',
    ]) {
      it(`refuses ${date}, which is not RFC 3339, with a pointer at /date`, async () => {
        const res = await put({ title: 'Fine', date })
        assert.equal(res.status, 422)
        assert.deepEqual(
          res.json().errors.map((e: { pointer: string }) => e.pointer),
          ['/date'],
        )
      })
    }
  })
}

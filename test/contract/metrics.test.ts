// GET /metrics: Prometheus text with request counts and latency by route pattern and status,
// the 5xx count, and pool use where the store has a pool.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { contractService, jsonHeaders } from '../support/contract.ts'
import { basic, editor } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] GET /metrics`, () => {
    const ctx = contractService(target, { location: false, settings: { seed: 'true' } })

    const sample = (text: string, series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `))
      return line === undefined ? undefined : Number(line.slice(series.length + 1))
    }

    it('counts requests by method, route pattern and status, with a latency histogram', async () => {
      const before = (await ctx.service.request('GET', '/metrics')).text
      const found = 'http_requests_total{method="GET",route="/events/:id",status="200"}'
      const missing = 'http_requests_total{method="GET",route="/events/:id",status="404"}'
      const foundBefore = sample(before, found) ?? 0
      const missingBefore = sample(before, missing) ?? 0
      assert.equal((await ctx.service.request('GET', '/events/1')).status, 200)
      assert.equal((await ctx.service.request('GET', '/events/2')).status, 200)
      assert.equal((await ctx.service.request('GET', '/events/99999')).status, 404)

      const res = await ctx.service.request('GET', '/metrics')
      assert.equal(res.status, 200)
      assert.equal(res.header('content-type'), 'text/plain; version=0.0.4; charset=utf-8')
      assert.equal(sample(res.text, found), foundBefore + 2)
      assert.equal(sample(res.text, missing), missingBefore + 1)
      // The raw URL never becomes a label value.
      assert.doesNotMatch(res.text, /route="\/events\/9/)
      assert.match(
        res.text,
        /^http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/events\/:id",status="200"\} \d+$/m,
      )
      assert.equal(sample(res.text, 'http_server_errors_total'), 0)
      assert.match(res.text, /^process_cpu_user_seconds_total /m)
    })

    it('labels the location routes and the entry point by their patterns', async () => {
      assert.equal((await ctx.service.request('GET', '/locations/1')).status, 200)
      assert.equal((await ctx.service.request('GET', '/locations')).status, 200)
      assert.equal((await ctx.service.request('GET', '/')).status, 200)
      const res = await ctx.service.request('GET', '/metrics')
      for (const route of ['/locations/:id', '/locations', '/']) {
        const series = `http_requests_total{method="GET",route="${route}",status="200"}`
        assert.ok((sample(res.text, series) ?? 0) >= 1, `${series} in ${res.text}`)
      }
      assert.doesNotMatch(res.text, /route="\/locations\/1"/)
    })

    const postgresStore = target.name !== 'sqlite'
    it(`${postgresStore ? 'reports' : 'has no'} database pool figures`, async () => {
      const res = await ctx.service.request('GET', '/metrics')
      const total = sample(res.text, 'db_pool_connections{state="total"}')
      if (postgresStore) {
        assert.ok(total !== undefined && total >= 1, res.text)
        assert.ok(sample(res.text, 'db_pool_connections{state="waiting"}') !== undefined)
      } else {
        assert.equal(total, undefined)
      }
    })

    it('counts password hashes: a credential not remembered and a wrong password cost one each, a remembered one none', async () => {
      const hashes = async () =>
        sample((await ctx.service.request('GET', '/metrics')).text, 'auth_password_hashes_total')
      const before = (await hashes()) ?? 0
      // Written to nothing: the body fails validation once the credentials have been checked.
      for (const authorization of [ctx.service.editorAuth, ctx.service.editorAuth]) {
        const res = await ctx.http('POST', '/events', { headers: jsonHeaders(authorization), body: {} })
        assert.equal(res.status, 422, res.text)
      }
      assert.equal(await hashes(), before + 1)
      const wrong = await ctx.http('POST', '/events', {
        headers: jsonHeaders(basic(editor.user, 'not-the-password')),
        body: {},
      })
      assert.equal(wrong.status, 401)
      assert.equal(await hashes(), before + 2)
    })

    it('is refused to a client that accepts only JSON', async () => {
      const res = await ctx.service.request('GET', '/metrics', { headers: { accept: 'application/json' } })
      assert.equal(res.status, 406)
    })
  })
}

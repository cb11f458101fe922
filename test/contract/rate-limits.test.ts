// Request rate limits (CONTRACT.md §5, §6; http/rate-limit.ts): reads per client address, writes per
// principal, 429 with Retry-After and a problem body past the quota, and the RateLimit-Policy and
// RateLimit fields of draft-ietf-httpapi-ratelimit-headers-11 on every response of a limited
// request. The service trusts 127.0.0.1 as a proxy, so that each test speaks from addresses of its
// own through X-Forwarded-For (request.ip follows TRUST_PROXY) and tests never share a budget.
// Counting through Redis, shared by instances, is in test/redis/rate-limits.test.ts.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { hashPassword } from '../../src/auth/passwords.ts'
import { assertProblem, contractService, jsonHeaders, types } from '../support/contract.ts'
import { basic, type Response } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const reads = 5
const writes = 3

/** The parameters of a RateLimit field (`"reads";r=4;t=60`) as numbers. */
function rateLimit(res: Response, policy: string): { r: number; t: number } {
  const field = res.header('ratelimit') ?? ''
  const match = new RegExp(`^"${policy}";r=(\\d+);t=(\\d+)$`).exec(field)
  assert.ok(match, `RateLimit must be "${policy}";r=…;t=…, got ${JSON.stringify(field)}`)
  return { r: Number(match[1]), t: Number(match[2]) }
}

function assertLimited(res: Response, policy: 'reads' | 'writes', quota: number) {
  assert.equal(res.header('ratelimit-policy'), `"${policy}";q=${quota};w=60`)
  return rateLimit(res, policy)
}

function assertRefused(res: Response, policy: 'reads' | 'writes', quota: number, head = false) {
  if (head) assert.equal(res.status, 429)
  else assertProblem(res, 429)
  const { r, t } = assertLimited(res, policy, quota)
  assert.equal(r, 0)
  // The draft: Retry-After and the reset parameter SHOULD name the same point in time.
  assert.equal(res.header('retry-after'), String(t))
  assert.ok(t >= 1 && t <= 60, `Retry-After within the minute, got ${t}`)
}

for (const target of storeTargets) {
  describe(`[${target.name}] request rate limits`, () => {
    const ctx = contractService(target, {
      settings: { rateLimitReads: String(reads), rateLimitWrites: String(writes), trustProxy: '127.0.0.1' },
    })
    const from = (address: string, headers: Record<string, string> = {}) => ({
      headers: { 'x-forwarded-for': address, ...headers },
    })
    /** Two more editors, each with a write budget of its own. */
    const editor2 = basic('editor2', 'editor2-password-1')
    const editor3 = basic('editor3', 'editor3-password-1')
    before(async () => {
      await ctx.service.store.putUser('editor2', 'editor', await hashPassword('editor2-password-1'))
      await ctx.service.store.putUser('editor3', 'editor', await hashPassword('editor3-password-1'))
    })
    /** How many events exist, asked from an address of its own (so no test's read budget is used). */
    let counter = 0
    const totalEvents = async () => {
      counter++
      const res = await ctx.http('GET', '/events', from(`203.0.113.${counter}`))
      assert.equal(res.status, 200, res.text)
      return res.json().total as number
    }

    it('counts reads per address and answers 429 with Retry-After, a problem body and the fields', async () => {
      const address = '198.51.100.1'
      for (let left = reads - 1; left >= 0; left--) {
        const res = await ctx.http('GET', '/events', from(address))
        assert.equal(res.status, 200)
        assert.equal(assertLimited(res, 'reads', reads).r, left)
      }
      assertRefused(await ctx.http('GET', '/events', from(address)), 'reads', reads)
      // HEAD and QUERY are reads too; so are reads with an editor's credentials.
      assertRefused(await ctx.http('HEAD', '/events', from(address)), 'reads', reads, true)
      assertRefused(
        await ctx.http('QUERY', '/events', {
          headers: { ...jsonHeaders(ctx.service.editorAuth), 'x-forwarded-for': address },
          body: {},
        }),
        'reads',
        reads,
      )
      // Another address has its budget untouched.
      const other = await ctx.http('GET', '/events', from('198.51.100.2'))
      assert.equal(other.status, 200)
      assert.equal(assertLimited(other, 'reads', reads).r, reads - 1)
    })

    it('counts an IPv6 client by its /64', async () => {
      for (let i = 0; i < reads; i++) {
        const res = await ctx.http('GET', '/events', from(`2001:db8:1:2::${i + 1}`))
        assert.equal(res.status, 200)
      }
      assertRefused(await ctx.http('GET', '/events', from('2001:db8:1:2:ffff::9')), 'reads', reads)
      assert.equal((await ctx.http('GET', '/events', from('2001:db8:1:3::1'))).status, 200)
    })

    it('puts the fields on every counted answer, errors included; requests the pipeline refuses are not counted', async () => {
      const address = '198.51.100.3'
      const missing = await ctx.http('GET', '/events/999999', from(address))
      assert.equal(missing.status, 404)
      assert.equal(assertLimited(missing, 'reads', reads).r, reads - 1)
      // Refused before they are counted: wrong credentials (which have their own limit, and whose
      // 401 must not differ by user) and a type that cannot be served.
      for (const [headers, status] of [
        [{ authorization: basic('editor', 'wrong-password') }, 401],
        [{ accept: 'application/xml' }, 406],
      ] as const) {
        const res = await ctx.http('GET', '/events', from(address, headers))
        assert.equal(res.status, status)
        assert.equal(res.header('ratelimit'), undefined)
        assert.equal(res.header('ratelimit-policy'), undefined)
      }
      assert.equal(rateLimit(await ctx.http('GET', '/events', from(address)), 'reads').r, reads - 2)
    })

    it('never limits /health/*, /metrics, OPTIONS or unknown paths, and sends them no fields', async () => {
      const address = '198.51.100.4'
      for (let i = 0; i <= reads; i++) await ctx.http('GET', '/events', from(address))
      for (const [method, path, status] of [
        ['GET', '/health/live', 200],
        ['GET', '/health/ready', 200],
        ['GET', '/metrics', 200],
        ['OPTIONS', '/events', 204],
        ['GET', '/nothing-here', 404],
      ] as const) {
        const res = await ctx.http(method, path, from(address))
        assert.equal(res.status, status, `${method} ${path}: ${res.text}`)
        assert.equal(res.header('ratelimit'), undefined, `${method} ${path} carries no RateLimit`)
        assert.equal(res.header('ratelimit-policy'), undefined)
      }
    })

    it('counts writes per principal, refuses past the quota with 429 and creates nothing', async () => {
      const address = '198.51.100.5'
      const post = (auth: string) =>
        ctx.http('POST', '/events', {
          headers: { ...jsonHeaders(auth), 'x-forwarded-for': address },
          body: ctx.newEventBody(),
        })
      for (let left = writes - 1; left >= 0; left--) {
        const res = await post(ctx.service.editorAuth)
        assert.equal(res.status, 201, res.text)
        assert.equal(assertLimited(res, 'writes', writes).r, left)
      }
      const before = await totalEvents()
      assertRefused(await post(ctx.service.editorAuth), 'writes', writes)
      assert.equal(await totalEvents(), before, 'a refused write changes nothing')
      // Another editor, from the same address, has a budget of its own.
      const other = await post(editor2)
      assert.equal(other.status, 201, other.text)
      assert.equal(assertLimited(other, 'writes', writes).r, writes - 1)
    })

    it('counts location writes with the writes of their principal, and /locations and / as reads', async () => {
      const address = '198.51.100.7'
      const auth = basic('editor4', 'editor4-password-1')
      await ctx.service.store.putUser('editor4', 'editor', await hashPassword('editor4-password-1'))
      const created = await ctx.http('POST', '/locations', {
        headers: { ...jsonHeaders(auth), 'x-forwarded-for': address },
        body: { name: 'Counted Hall', address: '1 Quota Street' },
      })
      assert.equal(created.status, 201, created.text)
      assert.equal(assertLimited(created, 'writes', writes).r, writes - 1)
      const renamed = await ctx.http('PATCH', `/locations/${created.json().id}`, {
        headers: { ...jsonHeaders(auth, types.mergePatch), 'x-forwarded-for': address },
        body: { name: 'Counted Hall 2' },
      })
      assert.equal(assertLimited(renamed, 'writes', writes).r, writes - 2)
      const list = await ctx.http('GET', '/locations', from(address))
      assert.equal(assertLimited(list, 'reads', reads).r, reads - 1)
      const entry = await ctx.http('GET', '/', from(address))
      assert.equal(assertLimited(entry, 'reads', reads).r, reads - 2)
    })

    it('keeps reads and writes apart: reads do not eat the write budget, nor writes the read budget', async () => {
      const address = '198.51.100.6'
      const auth = editor3
      const created = await ctx.http('POST', '/events', {
        headers: { ...jsonHeaders(auth), 'x-forwarded-for': address },
        body: ctx.newEventBody(),
      })
      assert.equal(created.status, 201, created.text)
      assert.equal(assertLimited(created, 'writes', writes).r, writes - 1)
      const event = created.json()
      const before = rateLimit(
        await ctx.http('GET', `/events/${event.id}`, from(address, { authorization: auth })),
        'reads',
      ).r
      const patch = await ctx.http('PATCH', `/events/${event.id}`, {
        headers: { ...jsonHeaders(auth, 'application/merge-patch+json'), 'x-forwarded-for': address },
        body: { title: 'Renamed within the budget' },
      })
      assert.equal(patch.status, 200, patch.text)
      const writesLeft = assertLimited(patch, 'writes', writes).r
      // A reader's GETs from the same address, then the editor's own: all count as reads only.
      for (const authorization of [ctx.service.readerAuth, auth]) {
        const res = await ctx.http('GET', `/events/${event.id}`, from(address, { authorization }))
        assert.equal(res.status, 200)
        assert.equal(res.header('ratelimit-policy'), `"reads";q=${reads};w=60`)
      }
      const after = await ctx.http('GET', `/events/${event.id}`, from(address))
      assert.equal(rateLimit(after, 'reads').r, before - 3, 'the write was not counted as a read')
      const del = await ctx.http('DELETE', `/events/${event.id}`, {
        headers: { authorization: auth, 'x-forwarded-for': address },
      })
      assert.equal(del.status, 204, del.text)
      assert.equal(assertLimited(del, 'writes', writes).r, writesLeft - 1)
    })

    it('refuses a write without credentials with 401 before counting it', async () => {
      const res = await ctx.http('POST', '/events', {
        headers: { ...jsonHeaders(), 'x-forwarded-for': '198.51.100.7' },
        body: ctx.newEventBody(),
      })
      assertProblem(res, 401)
      assert.equal(res.header('ratelimit'), undefined)
    })
  })

  describe(`[${target.name}] request rate limits switched off with 0`, () => {
    const ctx = contractService(target, { settings: { rateLimitReads: '0', rateLimitWrites: '0' } })

    it('counts nothing and sends no RateLimit fields', async () => {
      const read = await ctx.http('GET', '/events')
      const write = await ctx.http('POST', '/events', {
        headers: jsonHeaders(ctx.service.editorAuth),
        body: ctx.newEventBody(),
      })
      assert.deepEqual([read.status, write.status], [200, 201])
      for (const res of [read, write]) {
        assert.equal(res.header('ratelimit'), undefined)
        assert.equal(res.header('ratelimit-policy'), undefined)
      }
    })
  })
}

// PUT and PATCH of an event confirm remembered Basic credentials in the write's own statement
// instead of looking the user up first (src/http/authenticate.ts confirmedWrite): one round trip
// less on PostgreSQL. Here, on every store: that the lookup is skipped, and that a password, role
// or user changed behind the service's back still counts at the very next write, which then
// changes nothing.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { hashPassword } from '../../src/auth/passwords.ts'
import { contractService, types } from '../support/contract.ts'
import { basic } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const password = 'writer-password-1'
const newPassword = 'writer-password-2'
let hashes: { old: string; new: string }

before(async () => {
  const [old, changed] = await Promise.all([hashPassword(password), hashPassword(newPassword)])
  hashes = { old, new: changed }
})

for (const target of storeTargets) {
  describe(`[${target.name}] writes that confirm remembered credentials`, () => {
    const ctx = contractService(target)
    let lookups = 0
    let user = 0

    before(() => {
      // Counts the store's user lookups (the real lookup still runs).
      const store = ctx.service.store
      const findUser = store.findUser.bind(store)
      store.findUser = (name: string) => {
        lookups++
        return findUser(name)
      }
    })

    /** A new editor of the test's own, remembered by the service after one write. */
    async function rememberedWriter() {
      const name = `writer-${++user}`
      await ctx.service.store.putUser(name, 'editor', hashes.old)
      const event = await ctx.createEvent()
      const put = (auth: string, fields: Record<string, string> = {}, id = event.id as number) =>
        ctx.service.request('PUT', `/events/${id}`, {
          headers: { authorization: auth, 'content-type': types.event, ...fields },
          body: { title: `Written by ${name}`, date: '2027-05-01T10:00:00Z' },
        })
      assert.equal((await put(basic(name, password))).status, 200, 'checked in full and remembered')
      return { name, event, put, auth: basic(name, password) }
    }

    /** The event's version as stored, read past HTTP. */
    const versionOf = async (id: number) => (await ctx.service.store.getEvent(id))?.version

    it('writes with remembered credentials without looking the user up', async () => {
      const { event, put, auth } = await rememberedWriter()
      const before = lookups
      const res = await put(auth)
      assert.equal(res.status, 200)
      assert.equal(res.header('etag'), '"v3"')
      const patched = await ctx.service.request('PATCH', `/events/${event.id}`, {
        headers: { authorization: auth, 'content-type': types.mergePatch },
        body: { title: 'Patched' },
      })
      assert.equal(patched.status, 200)
      assert.equal(patched.json().title, 'Patched')
      assert.equal(lookups, before, 'no lookup for either write')
      assert.equal(await versionOf(event.id), 4)
    })

    it('refuses the old password at the next write after a change through another instance (401), writing nothing', async () => {
      const { name, event, put, auth } = await rememberedWriter()
      await ctx.service.store.putUser(name, 'editor', hashes.new)
      const res = await put(auth)
      assert.equal(res.status, 401)
      assert.match(res.header('www-authenticate') ?? '', /^Basic /)
      assert.equal(await versionOf(event.id), 2)
      assert.equal((await put(basic(name, newPassword))).status, 200)
    })

    it('refuses a writer demoted to reader at the next write (403), writing nothing', async () => {
      const { name, event, put, auth } = await rememberedWriter()
      await ctx.service.store.putUser(name, 'reader', hashes.old)
      assert.equal((await put(auth)).status, 403)
      assert.equal(await versionOf(event.id), 2)
    })

    it('refuses a removed writer at the next write (401), writing nothing', async () => {
      const { name, event, put, auth } = await rememberedWriter()
      await ctx.service.store.removeUser(name)
      assert.equal((await put(auth)).status, 401)
      assert.equal(await versionOf(event.id), 2)
    })

    it('answers 404 and 412 as ever when the credentials still hold', async () => {
      const { event, put, auth } = await rememberedWriter()
      assert.equal((await put(auth, {}, 99_999_999)).status, 404)
      assert.equal((await put(auth, { 'if-match': '"v1"' })).status, 412)
      assert.equal(await versionOf(event.id), 2)
      assert.equal((await put(auth, { 'if-match': '"v2"' })).status, 200)
    })
  })
}

// Authentication and authorisation (seed §5; CONTRACT.md §4): reads are open, writes need HTTP Basic
// credentials of an editor; 401 carries the exact challenge, 403 refuses readers, nothing is
// changed by a refused write, and no response ever sets a cookie.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { assertProblem, contractService, type Json, jsonHeaders, types } from '../support/contract.ts'
import { basic, editor, reader } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const challenge = 'Basic realm="events", charset="UTF-8"'
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')

for (const target of storeTargets) {
  describe(`[${target.name}] authentication and authorisation`, () => {
    const ctx = contractService(target)

    /** The four writes, each against its own fresh event, with the body each takes. */
    async function writes() {
      const event = await ctx.createEvent()
      return {
        event,
        requests: [
          {
            method: 'POST',
            path: '/events',
            contentType: types.json,
            body: ctx.newEventBody(),
          },
          {
            method: 'PUT',
            path: `/events/${event.id}`,
            contentType: types.json,
            body: { title: 'Replaced', date: '2027-01-01T00:00:00Z' },
          },
          {
            method: 'PATCH',
            path: `/events/${event.id}`,
            contentType: types.mergePatch,
            body: { title: 'Patched' },
          },
          { method: 'DELETE', path: `/events/${event.id}`, contentType: undefined, body: undefined },
        ],
      }
    }

    /** Every write with this Authorization (or none) answers `status`, and nothing changes. */
    async function refused(authorization: string | undefined, status: 401 | 403) {
      const { event, requests } = await writes()
      const before = await ctx.totalEvents()
      for (const { method, path, contentType, body } of requests) {
        const headers: Record<string, string> = {
          ...(contentType !== undefined && { 'content-type': contentType }),
          ...(authorization !== undefined && { authorization }),
        }
        const res = await ctx.http(method, path, { headers, ...(body !== undefined && { body }) })
        assert.equal(
          res.status,
          status,
          `${method} ${path} with ${authorization} → ${res.status} ${res.text}`,
        )
        assertProblem(res, status)
        if (status === 401) {
          assert.equal(
            res.header('www-authenticate'),
            challenge,
            `${method} ${path}: the exact Basic challenge`,
          )
        }
      }
      assert.equal(await ctx.totalEvents(), before, 'nothing was created')
      assert.deepEqual((await ctx.readEvent(event.id)).event, event as Json, 'nothing was changed or deleted')
    }

    it('answers 401 with the Basic challenge to writes without credentials', async () => {
      await refused(undefined, 401)
    })

    it('answers 401 to a wrong password', async () => {
      await refused(basic(editor.user, 'not-the-password'), 401)
      const nearMiss = await ctx.http('POST', '/events', {
        headers: jsonHeaders(basic(editor.user, editor.password.toUpperCase())),
        body: ctx.newEventBody(),
      })
      assertProblem(nearMiss, 401)
      assert.equal(nearMiss.header('www-authenticate'), challenge)
    })

    it('answers 401 to an unknown user', async () => {
      await refused(basic('nobody', editor.password), 401)
    })

    it('answers 401 to malformed or foreign Authorization fields', async () => {
      for (const field of [
        'Basic',
        'Basic ',
        'Basic !!!not-base64!!!',
        `Basic ${b64('no-colon-here')}`,
        `Basic ${b64(`:${editor.password}`)}`,
        `Basic ${b64(`${editor.user}:${editor.password}`)}extra`,
        `Bearer ${b64(`${editor.user}:${editor.password}`)}`,
        `Digest username="${editor.user}"`,
        `${editor.user}:${editor.password}`,
        b64(`${editor.user}:${editor.password}`),
      ]) {
        const res = await ctx.http('POST', '/events', {
          headers: jsonHeaders(field),
          body: ctx.newEventBody(),
        })
        assertProblem(res, 401)
        assert.equal(res.header('www-authenticate'), challenge, `Authorization: ${field}`)
      }
    })

    it('answers 401 before looking at the body of an unauthenticated write', async () => {
      const res = await ctx.http('POST', '/events', { headers: jsonHeaders(), body: { nonsense: true } })
      assertProblem(res, 401)
      assert.equal(res.header('www-authenticate'), challenge)
      const malformed = await ctx.http('POST', '/events', { headers: jsonHeaders(), body: '{"title": ' })
      assertProblem(malformed, 401)
    })

    it('answers 403 to a reader and changes nothing', async () => {
      await refused(ctx.service.readerAuth, 403)
      await refused(basic(reader.user, reader.password), 403)
    })

    it('lets an editor write: POST 201, PUT 200, PATCH 200, DELETE 204', async () => {
      const { requests } = await writes()
      const expected: Record<string, number> = { POST: 201, PUT: 200, PATCH: 200, DELETE: 204 }
      for (const { method, path, contentType, body } of requests) {
        const headers: Record<string, string> = {
          authorization: ctx.service.editorAuth,
          ...(contentType !== undefined && { 'content-type': contentType }),
        }
        const res = await ctx.http(method, path, { headers, ...(body !== undefined && { body }) })
        assert.equal(res.status, expected[method], `${method} ${path}: ${res.text}`)
        assert.equal(res.header('www-authenticate'), undefined)
      }
    })

    it('takes the scheme name case-insensitively (RFC 9110 §11.1)', async () => {
      const token = b64(`${editor.user}:${editor.password}`)
      for (const scheme of ['basic', 'BASIC']) {
        const res = await ctx.http('POST', '/events', {
          headers: jsonHeaders(`${scheme} ${token}`),
          body: ctx.newEventBody(),
        })
        assert.equal(res.status, 201, `${scheme}: ${res.text}`)
      }
    })

    it('needs no credentials for GET, HEAD and OPTIONS', async () => {
      const event = await ctx.createEvent()
      for (const path of ['/events', `/events/${event.id}`, `/locations/${ctx.locationId}`]) {
        for (const [method, status] of [
          ['GET', 200],
          ['HEAD', 200],
          ['OPTIONS', 204],
        ] as const) {
          const res = await ctx.http(method, path)
          assert.equal(res.status, status, `${method} ${path}: ${res.text}`)
          assert.equal(res.header('www-authenticate'), undefined)
        }
      }
    })

    it('is stateless: no response sets a cookie, and credentials are needed on every write', async () => {
      const ok = await ctx.http('POST', '/events', {
        headers: jsonHeaders(ctx.service.editorAuth),
        body: ctx.newEventBody(),
      })
      assert.equal(ok.status, 201)
      const forbidden = await ctx.http('DELETE', `/events/${ok.json().id}`, {
        headers: { authorization: ctx.service.readerAuth },
      })
      assert.equal(forbidden.status, 403)
      const anonymous = await ctx.http('DELETE', `/events/${ok.json().id}`)
      assert.equal(anonymous.status, 401, 'a successful login before does not open a session')
      for (const res of [ok, forbidden, anonymous]) assert.equal(res.headers['set-cookie'], undefined)
    })
  })
}

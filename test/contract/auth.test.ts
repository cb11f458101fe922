// Authentication and authorisation (seed §5; CONTRACT.md §4): reads are open, writes need HTTP Basic
// credentials of an editor; credentials that are sent are checked on reads too; 401 carries the
// exact challenge and says the same whether or not the user exists, 403 refuses readers, nothing
// is changed by a refused write, and no response ever sets a cookie. Then: failed attempts are
// limited per address and per name (429), and weaker stored hashes are upgraded at login.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { costOf } from '../../src/auth/passwords.ts'
import { assertProblem, contractService, type Json, jsonHeaders, types } from '../support/contract.ts'
import { basic, editor, type Response, reader } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const challenge = 'Basic realm="events", charset="UTF-8"'
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')

/** Status, headers and body, without the two fields that differ on every response. */
function comparable(res: Response) {
  const { 'x-request-id': _id, date: _date, ...headers } = res.headers
  return { status: res.status, headers, text: res.text }
}

for (const target of storeTargets) {
  describe(`[${target.name}] authentication and authorisation`, () => {
    // Many failures come from one address here; the limit has its own block below.
    const ctx = contractService(target, { settings: { authFailuresPerMinute: '1000' } })

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

    it('checks credentials sent with a read: wrong ones are 401 with the challenge on GET, HEAD and QUERY', async () => {
      const event = await ctx.createEvent()
      const wrong = [basic(editor.user, 'not-the-password'), basic('nobody', editor.password), 'Bearer abc']
      for (const path of [
        '/events',
        `/events/${event.id}`,
        `/locations/${ctx.locationId}`,
        '/health/live',
        '/metrics',
      ]) {
        for (const method of ['GET', 'HEAD', ...(path === '/events' ? ['QUERY'] : [])]) {
          for (const authorization of wrong) {
            const res = await ctx.http(method, path, { headers: { authorization } })
            assert.equal(res.status, 401, `${method} ${path} with ${authorization}: ${res.text}`)
            assert.equal(res.header('www-authenticate'), challenge)
          }
        }
      }
    })

    it('takes valid credentials of a reader or an editor on a read (no 403 on reads)', async () => {
      const event = await ctx.createEvent()
      for (const authorization of [ctx.service.readerAuth, ctx.service.editorAuth]) {
        for (const [method, path] of [
          ['GET', '/events'],
          ['HEAD', `/events/${event.id}`],
          ['QUERY', '/events'],
          ['GET', '/health/ready'],
          ['GET', '/metrics'],
        ] as const) {
          // QUERY carries its parameters as a body (none here).
          const res =
            method === 'QUERY'
              ? await ctx.http(method, path, { headers: jsonHeaders(authorization), body: {} })
              : await ctx.http(method, path, { headers: { authorization } })
          assert.equal(res.status, 200, `${method} ${path}: ${res.text}`)
          assert.equal(res.header('www-authenticate'), undefined)
        }
      }
    })

    it('never looks at credentials on OPTIONS (a CORS preflight carries none)', async () => {
      const res = await ctx.http('OPTIONS', '/events', {
        headers: { authorization: basic(editor.user, 'not-the-password') },
      })
      assert.equal(res.status, 204)
      assert.equal(res.header('www-authenticate'), undefined)
    })

    it('answers an unknown user exactly as a wrong password, byte for byte, on reads and writes', async () => {
      for (const [method, path, body] of [
        ['GET', '/events', undefined],
        ['POST', '/events', ctx.newEventBody()],
        ['DELETE', `/events/${(await ctx.createEvent()).id}`, undefined],
      ] as const) {
        const answers = []
        for (const authorization of [
          basic(editor.user, 'not-the-password'),
          basic('nobody', 'not-the-password'),
        ]) {
          const headers = body === undefined ? { authorization } : jsonHeaders(authorization)
          answers.push(comparable(await ctx.http(method, path, { headers, ...(body && { body }) })))
        }
        assert.equal(answers[0]?.status, 401)
        assert.deepEqual(answers[1], answers[0], `${method} ${path}`)
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

for (const target of storeTargets) {
  describe(`[${target.name}] failed authentication attempts`, () => {
    // Addresses come from X-Forwarded-For (a trusted proxy), so one test client can be many clients.
    const ctx = contractService(target, {
      settings: { authFailuresPerMinute: '3', trustProxy: 'true' },
      location: false,
    })
    const from = (address: string, authorization?: string) => ({
      headers: { 'x-forwarded-for': address, ...(authorization !== undefined && { authorization }) },
    })

    function assertLimited(res: Response) {
      assertProblem(res, 429)
      const seconds = Number(res.header('retry-after'))
      assert.ok(
        Number.isInteger(seconds) && seconds >= 1 && seconds <= 60,
        `Retry-After: ${res.header('retry-after')}`,
      )
      assert.equal(res.header('ratelimit'), `"auth-failures";r=0;t=${seconds}`)
      assert.equal(res.header('ratelimit-policy'), '"auth-failures";q=3;w=60')
      assert.equal(res.header('www-authenticate'), undefined)
    }

    it('answers 429 with Retry-After to an address past the limit, whatever it sends, and serves others', async () => {
      for (const name of ['a1', 'a2', 'a3']) {
        assertProblem(await ctx.http('GET', '/health/live', from('198.51.100.1', basic(name, 'guess'))), 401)
      }
      assertLimited(await ctx.http('GET', '/health/live', from('198.51.100.1', basic('a4', 'guess'))))
      assertLimited(await ctx.http('GET', '/health/live', from('198.51.100.1', ctx.service.readerAuth)))
      // Without credentials a read asks nothing to be checked.
      assert.equal((await ctx.http('GET', '/health/live', from('198.51.100.1'))).status, 200)
      assert.equal(
        (await ctx.http('GET', '/health/live', from('198.51.100.2', ctx.service.readerAuth))).status,
        200,
      )
    })

    it('answers 429 to a name past the limit from any address, correct password included', async () => {
      for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        assertProblem(await ctx.http('GET', '/health/live', from(address, basic(reader.user, 'guess'))), 401)
      }
      assertLimited(await ctx.http('GET', '/health/live', from('203.0.113.4', ctx.service.readerAuth)))
      assert.equal(
        (await ctx.http('GET', '/health/live', from('203.0.113.4', ctx.service.editorAuth))).status,
        200,
      )
    })

    it('limits an unknown name exactly as a known one: the same answers, byte for byte', async () => {
      const answers = []
      for (const name of ['editor', 'ghost']) {
        // A fresh address per request: only the name's counter fills.
        const sent = (i: number) => from(`192.0.2.${name.length * 10 + i}`, basic(name, 'guess'))
        const failures = [1, 2, 3].map((i) => ctx.http('GET', '/health/live', sent(i)))
        for (const res of await Promise.all(failures)) assertProblem(res, 401)
        const limited = await ctx.http('GET', '/health/live', sent(4))
        assertLimited(limited)
        const { 'retry-after': _r, ratelimit: _l, ...headers } = comparable(limited).headers
        answers.push({ ...comparable(limited), headers })
      }
      assert.deepEqual(answers[1], answers[0])
    })
  })

  describe(`[${target.name}] password hashes stronger than stored`, () => {
    const ctx = contractService(target, { settings: { passwordHashTimeCost: '6' }, location: false })
    const storedCost = async (name: string) =>
      costOf((await ctx.service.store.findUser(name))?.passwordHash ?? '')

    it('upgrades a stored hash to the configured cost at the next successful login; the password still works', async () => {
      assert.deepEqual(await storedCost(editor.user), {
        passwordHashMemoryKib: 7_168,
        passwordHashTimeCost: 5,
      })
      assert.equal(
        (await ctx.http('GET', '/health/live', { headers: { authorization: ctx.service.editorAuth } }))
          .status,
        200,
      )
      assert.deepEqual(await storedCost(editor.user), {
        passwordHashMemoryKib: 7_168,
        passwordHashTimeCost: 6,
      })
      const wrong = await ctx.http('GET', '/health/live', {
        headers: { authorization: basic(editor.user, 'nope-nope') },
      })
      assert.equal(wrong.status, 401)
      const write = await ctx.http('POST', '/events', {
        headers: jsonHeaders(ctx.service.editorAuth),
        body: {
          title: 'After the upgrade',
          date: '2027-01-01T00:00:00Z',
          location_id: await ctx.newLocation(),
        },
      })
      assert.equal(write.status, 201, write.text)
    })

    it('never upgrades on a wrong password', async () => {
      const before = (await ctx.service.store.findUser(reader.user))?.passwordHash
      const res = await ctx.http('GET', '/health/live', {
        headers: { authorization: basic(reader.user, 'nope-nope') },
      })
      assert.equal(res.status, 401)
      assert.equal((await ctx.service.store.findUser(reader.user))?.passwordHash, before)
      assert.deepEqual(costOf(before ?? ''), { passwordHashMemoryKib: 7_168, passwordHashTimeCost: 5 })
    })
  })
}

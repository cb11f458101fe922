// The plainest reads of one resource are answered past Fastify (src/http/direct-read.ts). Here,
// on every store: that they are (a hook of the test sees every request Fastify's path serves),
// that their answers are Fastify's byte for byte, and that everything else still goes to Fastify.
import assert from 'node:assert/strict'
import { Agent, get } from 'node:http'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import type { FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { type ServiceSettings, startService, type TestService } from '../support/service.ts'
import { type StoreTarget, storeTargets } from '../support/stores.ts'

/** One request written as is on a new connection; the response exactly as it came. */
function exchange(port: number, head: string, body = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}Connection: close\r\n\r\n${body}`))
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}

/** Without what differs between two answers anyway: the date, and the reads left by the rate limit. */
const comparable = (response: string) =>
  response.replace(/^Date: .*$/m, 'Date: -').replace(/^ratelimit: "reads";r=\d+/m, 'ratelimit: "reads";r=-')

/** Titles whose JSON needs escaping, or which are far from ASCII. */
const titles = [
  'A plain title',
  'Quotes " and \\ backslashes, a tab\tand a newline\n',
  'Line separator \u2028 and paragraph separator \u2029',
  'Ünïcödé, 中文, emoji 🎉, and \u0001 a control character',
  '</script><script>alert(1)</script>',
]

/**
 * A service of the describe block's own whose Fastify path is watched: `viaFastify` lists each
 * request that path serves, as `METHOD url` (the direct path runs no hook).
 */
function watchedService(target: StoreTarget, settings: ServiceSettings, logger?: FastifyBaseLogger) {
  const watched = { service: undefined as unknown as TestService, viaFastify: [] as string[] }
  before(async () => {
    watched.service = await startService(target, settings, {
      ...(logger && { logger }),
      beforeListen: (app) =>
        app.addHook('onRequest', (request, _reply, done) => {
          watched.viaFastify.push(`${request.method} ${request.url}`)
          done()
        }),
    })
  })
  after(() => watched.service.close())
  return watched
}

/** An event at a location of its own, made through the store. */
async function anEvent(service: TestService, title: string) {
  const location = await service.store.createLocation({ name: 'Hall', address: 'Street 1' })
  return service.store.createEvent({ title, date: Date.UTC(2027, 1, 1), locationId: location.id })
}

for (const target of storeTargets) {
  describe(`[${target.name}] reads answered past Fastify`, () => {
    const lines: Record<string, unknown>[] = []
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    )
    const watched = watchedService(target, { rateLimitReads: '100000' }, logger)
    const viaFastify = watched.viaFastify
    let service: TestService
    const ids: number[] = []
    let locationId = 0

    before(async () => {
      service = watched.service
      const location = await service.store.createLocation({ name: 'Hall "A"', address: '1 Main Street' })
      locationId = location.id
      for (const [i, title] of titles.entries()) {
        const event = await service.store.createEvent({
          title,
          date: Date.UTC(2027, 0, 1 + i, 9, 30, i === 1 ? 15 : 0, i === 2 ? 250 : 0),
          locationId,
        })
        ids.push(event.id)
      }
      // A version above 1 in the ETag.
      await service.store.updateEvent(ids[0] as number, { title: 'A plain title, edited' })
    })

    /** The same request twice: as it is, and with a field Fastify's path alone takes. */
    async function bothWays(path: string, fields = '') {
      viaFastify.length = 0
      const head = `GET ${path} HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: compare-1\r\n${fields}`
      const direct = await exchange(service.port, head)
      const directVia = viaFastify.splice(0)
      const fastify = await exchange(service.port, `${head}X-Other: 1\r\n`)
      assert.deepEqual(viaFastify, [`GET ${path}`], `GET ${path} with X-Other goes through Fastify`)
      return { direct, directVia, fastify }
    }

    it('answers a plain read of an event or a location directly, exactly as Fastify does', async () => {
      const paths: [string, string][] = [
        ...ids.map((id): [string, string] => [`/events/${id}`, 'event']),
        [`/locations/${locationId}`, 'location'],
      ]
      const accepts = (type: string) => [
        '',
        `Accept: application/vnd.service.${type}+json\r\n`,
        'Accept: application/vnd.service.location+json, application/vnd.service.event+json\r\n',
        'Accept: application/json\r\n',
        'Accept: */*\r\n',
        'Accept: application/json;q=0.5, */*;q=0.1\r\n',
        'Accept-Encoding: gzip, br\r\nUser-Agent: test\r\nCache-Control: no-cache\r\n',
      ]
      for (const [path, type] of paths) {
        for (const fields of accepts(type)) {
          const { direct, directVia, fastify } = await bothWays(path, fields)
          const where = `GET ${path} with ${JSON.stringify(fields)}`
          assert.deepEqual(directVia, [], `${where} is answered past Fastify`)
          assert.match(direct, /^HTTP\/1\.1 200 OK\r\n/, where)
          assert.equal(comparable(direct), comparable(fastify), where)
        }
      }
    })

    it('gives every other read to Fastify, which answers it as before', async () => {
      const id = ids[0] as number
      const cases: [path: string, fields: string, status: number, body?: string][] = [
        [`/events/${id}`, 'Accept: text/html\r\n', 200],
        [`/events/${id}`, 'Accept: text/plain\r\n', 406],
        [`/events/${id}`, `Authorization: ${service.readerAuth}\r\n`, 200],
        [`/events/${id}`, 'Authorization: Basic d3Jvbmc6d3Jvbmc=\r\n', 401],
        [`/events/${id}`, 'If-None-Match: "v2"\r\n', 304],
        [`/events/${id}`, 'If-None-Match: "v1"\r\n', 200],
        [`/events/${id}`, 'Origin: https://elsewhere.example\r\n', 200],
        [`/events/${id}`, 'X-Forwarded-For: 203.0.113.9\r\n', 200],
        [`/events/${id}`, 'Content-Length: 2\r\nContent-Type: application/json\r\n', 415, '{}'],
        [`/events/${id}?page=1`, '', 200],
        [`/events/${id}/`, '', 404],
        ['/events/0', '', 404],
        ['/events/99999999', '', 404],
        ['/events/9007199254740993', '', 404],
        ['/events/01', '', 404],
        ['/nothing/1', '', 404],
        ['//events/1', '', 404],
        ['http://localhost/events/1', '', 200],
      ]
      for (const [path, fields, status, body] of cases) {
        viaFastify.length = 0
        const response = await exchange(
          service.port,
          `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${fields}`,
          body,
        )
        const where = `GET ${path} with ${JSON.stringify(fields)}`
        assert.match(response, new RegExp(`^HTTP/1\\.1 ${status} `), where)
        assert.deepEqual(viaFastify, [`GET ${path}`], `${where} goes through Fastify`)
      }
      viaFastify.length = 0
      assert.match(
        await exchange(service.port, `HEAD /events/${id} HTTP/1.1\r\nHost: x\r\n`),
        /^HTTP\/1\.1 200 /,
      )
      assert.deepEqual(viaFastify, [`HEAD /events/${id}`])
    })

    it('answers pipelined reads in the order asked, direct and Fastify answers mixed', async () => {
      // Direct answers wait for the end of the event loop's turn (direct-read.ts); those of
      // Fastify's path do not. One write of five requests: each answer must still be its own.
      const [first, second] = ids as [number, number]
      const asked: [path: string, status: number, id?: number][] = [
        [`/events/${first}`, 200, first],
        ['/events/99999999', 404],
        [`/events/${second}`, 200, second],
        [`/events/${first}?page=1`, 200, first],
        [`/locations/${locationId}`, 200, locationId],
      ]
      viaFastify.length = 0
      const requests = asked.map(
        ([path], i) =>
          `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Request-Id: pipelined-${i}\r\n${i === asked.length - 1 ? 'Connection: close\r\n' : ''}\r\n`,
      )
      const response = await exchange(service.port, requests.join('').replace(/\r\n\r\n$/, '\r\n'))
      const answers = response.split(/(?=HTTP\/1\.1 \d{3} )/)
      assert.equal(answers.length, asked.length, response)
      for (const [i, [path, status, id]] of asked.entries()) {
        const answer = answers[i] as string
        assert.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `), path)
        assert.match(answer, new RegExp(`\r\nx-request-id: pipelined-${i}\r\n`), path)
        if (id !== undefined) assert.match(answer, new RegExp(`\\r\\n\\r\\n\\{.*"id":${id}[,}]`), path)
      }
      // The 404 reaches Fastify after its read, so perhaps after the read that follows it.
      assert.deepEqual(viaFastify.sort(), [`GET /events/${first}?page=1`, 'GET /events/99999999'])
    })

    it('gives each of many reads at once its own answer', async () => {
      viaFastify.length = 0
      // Ten connections kept alive, so that reads arrive together and on the same connections.
      const agent = new Agent({ keepAlive: true, maxSockets: 10 })
      const read = (id: number, requestId: string) =>
        new Promise<{ status?: number; requestId: unknown; body: string }>((resolve, reject) => {
          const options = { agent, headers: { 'x-request-id': requestId } }
          get(`${service.baseUrl}/events/${id}`, options, (answer) => {
            let body = ''
            answer.setEncoding('utf8')
            answer.on('data', (chunk: string) => {
              body += chunk
            })
            answer.on('end', () =>
              resolve({ status: answer.statusCode, requestId: answer.headers['x-request-id'], body }),
            )
          }).on('error', reject)
        })
      try {
        const answers = await Promise.all(
          Array.from({ length: 60 }, async (_, i) => {
            const id = ids[i % ids.length] as number
            return { i, id, ...(await read(id, `many-${i}`)) }
          }),
        )
        for (const { i, id, status, requestId, body } of answers) {
          assert.equal(status, 200)
          assert.equal(requestId, `many-${i}`)
          assert.equal((JSON.parse(body) as { id: number }).id, id)
        }
        assert.deepEqual(viaFastify, [])
      } finally {
        agent.destroy()
      }
    })

    it('writes the access line and counts the answer in the metrics as Fastify does', async () => {
      const path = `/events/${ids[1]}`
      const metric = 'http_requests_total{method="GET",route="/events/:id",status="200"}'
      const count = async () => {
        const text = (await service.request('GET', '/metrics')).text
        const line = text.split('\n').find((l) => l.startsWith(`${metric} `))
        return Number(line?.slice(metric.length + 1) ?? 0)
      }
      const before = await count()
      lines.length = 0
      const { directVia } = await bothWays(path)
      assert.deepEqual(directVia, [])
      assert.equal(await count(), before + 2)
      const answered = lines.filter((line) => line.msg === 'request completed' && line.url === path)
      assert.equal(answered.length, 2, JSON.stringify(lines))
      const [direct, fastify] = answered as [Record<string, unknown>, Record<string, unknown>]
      const shape = (line: Record<string, unknown>) => ({
        ...line,
        time: typeof line.time,
        responseTime: typeof line.responseTime,
      })
      assert.deepEqual(Object.keys(direct), Object.keys(fastify))
      assert.deepEqual(shape(direct), shape(fastify))
      assert.equal(direct.url, path)
      assert.equal(direct.requestId, 'compare-1')
    })
  })

  describe(`[${target.name}] reads past Fastify and the rate limit`, () => {
    const watched = watchedService(target, { rateLimitReads: '2' })

    it('refuses the read over the limit through Fastify, with the fields of its count (counted once: test/unit/rate-limit.test.ts)', async () => {
      const { service, viaFastify } = watched
      const event = await anEvent(service, 'Limited')
      const read = () => exchange(service.port, `GET /events/${event.id} HTTP/1.1\r\nHost: x\r\n`)
      assert.match(await read(), /^HTTP\/1\.1 200 [\s\S]*\r\nratelimit: "reads";r=1;t=\d+\r\n/)
      assert.match(await read(), /^HTTP\/1\.1 200 [\s\S]*\r\nratelimit: "reads";r=0;t=\d+\r\n/)
      assert.deepEqual(viaFastify, [])
      const refused = await read()
      assert.match(refused, /^HTTP\/1\.1 429 [\s\S]*\r\nratelimit: "reads";r=0;t=\d+\r\nretry-after: \d+\r\n/)
      assert.match(refused, /"status":429/)
      assert.deepEqual(viaFastify, [`GET /events/${event.id}`])
    })
  })

  describe(`[${target.name}] reads behind a trusted proxy`, () => {
    const watched = watchedService(target, { trustProxy: '127.0.0.1' })

    it('go through Fastify, which reads the forwarding fields', async () => {
      const { service, viaFastify } = watched
      const event = await anEvent(service, 'Proxied')
      const response = await exchange(service.port, `GET /events/${event.id} HTTP/1.1\r\nHost: x\r\n`)
      assert.match(response, /^HTTP\/1\.1 200 /)
      assert.deepEqual(viaFastify, [`GET /events/${event.id}`])
    })
  })
}

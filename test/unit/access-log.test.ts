// What a request writes to the log (http/access-log.ts): one access line per answered request at
// info, its start at debug, nothing at warn unless it warns itself, and the request id on every
// line the request writes.
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import type { LoggerOptions } from 'pino'
import { AccessLog, requestLogger, serviceLogger } from '../../src/http/access-log.ts'

async function linesOf(level: string, accessLog: boolean, path: string, options: LoggerOptions = {}) {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line))
      done()
    },
  })
  const app = Fastify({
    logger: { level, stream, ...options },
    logController: new AccessLog(accessLog),
    childLoggerFactory: requestLogger,
    genReqId: () => 'request-1',
  })
  app.get('/quiet', async () => ({ ok: true }))
  app.get('/warns', async (request) => {
    request.log.warn({ detail: 'x' }, 'careful')
    request.log.child({ step: 2 }).error('broken')
    return { ok: true }
  })
  const response = await app.inject({ method: 'GET', url: path })
  assert.equal(response.statusCode, 200)
  await app.close()
  return lines.filter((line) => line.requestId !== undefined || line.msg === 'careful')
}

describe('the access log', () => {
  it('writes one line per answered request at info, with request id, method, URL and status', async () => {
    const lines = await linesOf('info', true, '/quiet?a=1')
    assert.equal(lines.length, 1)
    const [line] = lines
    assert.equal(line?.msg, 'request completed')
    assert.equal(line?.level, 30)
    assert.equal(line?.requestId, 'request-1')
    assert.equal(line?.method, 'GET')
    assert.equal(line?.url, '/quiet?a=1')
    assert.equal(line?.statusCode, 200)
    assert.equal(typeof line?.responseTime, 'number')
  })

  it('also writes when each request starts at debug, URL included', async () => {
    const lines = await linesOf('debug', true, '/quiet')
    assert.deepEqual(
      lines.map((line) => [line.msg, line.level, line.url]),
      [
        ['incoming request', 20, '/quiet'],
        ['request completed', 30, '/quiet'],
      ],
    )
  })

  it('writes nothing per request at warn, or with ACCESS_LOG=false', async () => {
    assert.deepEqual(await linesOf('warn', true, '/quiet'), [])
    assert.deepEqual(await linesOf('debug', false, '/quiet'), [])
  })

  it("keeps the request id on every line a request writes, its children's too", async () => {
    for (const [level, accessLog] of [
      ['warn', true],
      ['info', false],
    ] as const) {
      const lines = await linesOf(level, accessLog, '/warns')
      assert.deepEqual(
        lines.map((line) => [line.msg, line.requestId, line.step]),
        [
          ['careful', 'request-1', undefined],
          ['broken', 'request-1', 2],
        ],
        `${level}, ACCESS_LOG=${accessLog}`,
      )
    }
  })

  it("leaves the line to be made when the process's log buffer is written, the same bytes", () => {
    const waiting: { toString(): string }[] = []
    const written: string[] = []
    const buffer = {
      write: (line: string) => written.push(line),
      writeDeferred: (line: { toString(): string }) => waiting.push(line),
    }
    const buffered = serviceLogger({ level: 'info', redact: [], stream: buffer })
    const direct = serviceLogger({
      level: 'info',
      redact: [],
      stream: { write: (line: string) => written.push(line) },
    })
    const line = {
      requestId: 'request-1',
      method: 'GET',
      url: '/events/1?q="caf\u00e9"',
      remoteAddress: '::1',
      statusCode: 304,
      responseTime: 0.41,
    }
    buffered.write(line)
    assert.deepEqual(written, [], 'nothing made on the request path')
    assert.equal(waiting.length, 1)
    direct.write(line)
    const timeless = (text: string) => text.replace(/"time":\d+/, '"time":0')
    assert.equal(timeless(String(waiting[0])), timeless(written[0] ?? 'none'))
  })

  it("writes the service logger's line directly, byte for byte as pino writes it", async () => {
    // serviceLogger's writer uses pino's public API only; this fails if pino's line ever differs.
    for (const path of [
      '/quiet',
      '/quiet?q="caf\u00e9"&x=\\',
      `/quiet?${'a'.repeat(300)}`,
      '/quiet?\u2028',
    ]) {
      const written: string[] = []
      const own = serviceLogger({
        level: 'info',
        redact: ['req.headers.authorization'],
        stream: { write: (line: string) => written.push(line) },
      })
      const accessLog = new AccessLog(true)
      const app = Fastify({
        loggerInstance: own.logger,
        logController: accessLog,
        childLoggerFactory: requestLogger,
        genReqId: () => 'request-1',
      })
      let direct = 0
      accessLog.writesDirectly(app.log, (line) => {
        direct++
        own.write(line)
      })
      app.get('/quiet', async () => ({ ok: true }))
      assert.equal((await app.inject({ method: 'GET', url: path })).statusCode, 200)
      await app.close()
      assert.equal(direct, 1, path)
      const line = written.find((text) => text.includes('request completed')) ?? ''
      const fields = JSON.parse(line) as Record<string, unknown>
      const { level: _level, time: _time, pid: _pid, hostname: _hostname, msg: _msg, ...access } = fields
      app.log.info(access, 'request completed')
      const viaPino = written.at(-1) ?? ''
      const timeless = (text: string) => text.replace(/"time":\d+/, '"time":0')
      assert.equal(timeless(line), timeless(viaPino), path)
      assert.deepEqual(Object.keys(access), [
        'requestId',
        'method',
        'url',
        'remoteAddress',
        'statusCode',
        'responseTime',
      ])
    }
  })

  it('keeps what a logger adds to every line (a mixin, a message key, bindings)', async () => {
    const [line] = await linesOf('info', true, '/quiet', {
      mixin: () => ({ service: 'events' }),
      messageKey: 'message',
      base: { instance: 'a' },
    })
    assert.equal(line?.service, 'events')
    assert.equal(line?.message, 'request completed')
    assert.equal(line?.instance, 'a')
  })
})

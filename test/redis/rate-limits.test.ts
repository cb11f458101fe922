// Rate-limit counters shared through Redis (REDIS_URL; http/rate-limit-store.ts): instances that
// share a Redis share every budget (CONTRACT.md §6, "shared across instances when a Redis URL is
// configured"); when Redis goes away each instance keeps serving and counts alone, says so once in
// its log and in /health/ready (still 200: Redis down is no outage), and shares again once Redis is
// back. Redis is cut through a TCP proxy (test/support/tcp-proxy.ts); the machine's Redis is never
// touched beyond this test's own keys, under a prefix of its own, deleted afterwards. One store is
// enough: the counters never touch the database.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import { after, describe, it } from 'node:test'
import type { FastifyBaseLogger } from 'fastify'
import { Redis } from 'ioredis'
import type { Response, TestService } from '../support/service.ts'
import { startService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'

const redisUrl = process.env.REDIS_URL_TEST || undefined
const skipReason = redisUrl ? undefined : 'REDIS_URL_TEST is not set (e.g. redis://127.0.0.1:6379)'
if (skipReason) {
  // CI promises Redis: a silently skipped run there would be a false green.
  if (process.env.CI === 'true') throw new Error(`CI=true but ${skipReason}`)
  process.stderr.write(`note: Redis rate-limit tests are skipped: ${skipReason}\n`)
}

const sqlite = storeTargets[0]
if (!sqlite) throw new Error('no store target')

/** A logger that keeps every line, so a test can count what was said. */
function recordingLogger(): { logger: FastifyBaseLogger; messages: (level: string, text: string) => number } {
  const lines: { level: string; message: string }[] = []
  const record =
    (level: string) =>
    (...args: unknown[]) => {
      lines.push({ level, message: args.find((arg): arg is string => typeof arg === 'string') ?? '' })
    }
  const logger = {
    level: 'info',
    fatal: record('fatal'),
    error: record('error'),
    warn: record('warn'),
    info: record('info'),
    debug: record('debug'),
    trace: record('trace'),
    silent: () => {},
    child: () => logger,
  }
  return {
    logger: logger as unknown as FastifyBaseLogger,
    messages: (level, text) =>
      lines.filter((line) => line.level === level && line.message.includes(text)).length,
  }
}

const sharedLine = 'rate-limit counters are shared through Redis'
const localLine = 'Redis cannot be reached'

const remaining = (res: Response) => Number(/;r=(\d+);/.exec(res.header('ratelimit') ?? '')?.[1])

/** Polls readiness (no fixed sleep) until it reports Redis as `state`, within a bound. */
async function untilRedis(service: TestService, state: 'up' | 'down') {
  for (let attempt = 0; attempt < 200; attempt++) {
    const res = await service.request('GET', '/health/ready')
    assert.equal(res.status, 200, `readiness stays 200 whatever Redis does: ${res.text}`)
    if (res.json().checks?.redis === state) return res
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.fail(`/health/ready never reported Redis ${state}`)
}

describe('rate limits shared through Redis', { skip: skipReason ?? false }, () => {
  const prefixes: string[] = []
  const services: TestService[] = []
  const newPrefix = () => {
    const prefix = `ers-test:${randomUUID()}:`
    prefixes.push(prefix)
    return prefix
  }
  const start = async (...args: Parameters<typeof startService>) => {
    const service = await startService(...args)
    services.push(service)
    return service
  }

  after(async () => {
    await Promise.all(services.map((service) => service.close()))
    if (!redisUrl) return
    // Only this test's keys are deleted.
    const redis = new Redis(redisUrl, { lazyConnect: true })
    await redis.connect()
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.del(...keys)
    }
    await redis.quit()
  })

  it('counts requests split over two instances together, reads and writes alike', async () => {
    const settings = { rateLimitReads: '4', rateLimitWrites: '2', redisUrl: redisUrl ?? '' }
    const options = { rateLimitKeyPrefix: newPrefix() }
    const a = await start(sqlite, settings, options)
    const b = await start(sqlite, settings, options)
    const ready = await untilRedis(a, 'up')
    assert.deepEqual(ready.json(), {
      status: 'ready',
      checks: { database: 'up', redis: 'up' },
      details: { redis: sharedLine },
    })
    await untilRedis(b, 'up')

    const reads = [await a.request('GET', '/events'), await b.request('GET', '/events')]
    reads.push(await a.request('GET', '/events'), await b.request('GET', '/events'))
    assert.deepEqual(
      reads.map((res) => [res.status, remaining(res)]),
      [
        [200, 3],
        [200, 2],
        [200, 1],
        [200, 0],
      ],
    )
    assert.equal((await a.request('GET', '/events')).status, 429)
    assert.equal((await b.request('GET', '/events')).status, 429)

    // A write counts after authentication even when it finds nothing (404): the editor's two
    // writes are spent over both instances.
    const write = (service: TestService) =>
      service.request('DELETE', '/events/999999', { headers: { authorization: service.editorAuth } })
    const writes = [await write(a), await write(b), await write(a)]
    assert.deepEqual(
      writes.map((res) => [res.status, res.header('ratelimit')?.replace(/;t=\d+$/, '')]),
      [
        [404, '"writes";r=1'],
        [404, '"writes";r=0'],
        [429, '"writes";r=0'],
      ],
    )
  })

  it('counts locally while Redis is away, says so once, and shares again when it is back', async () => {
    assert.ok(redisUrl)
    const direct = new URL(redisUrl)
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 6379) })
    const viaProxy = new URL(redisUrl)
    viaProxy.port = String(proxy.port)
    try {
      const options = { rateLimitKeyPrefix: newPrefix() }
      const log = recordingLogger()
      const a = await start(
        sqlite,
        { rateLimitReads: '100', redisUrl: viaProxy.toString() },
        { ...options, ...log },
      )
      const b = await start(sqlite, { rateLimitReads: '100', redisUrl }, options)
      await untilRedis(a, 'up')
      await untilRedis(b, 'up')
      assert.deepEqual(
        [remaining(await a.request('GET', '/events')), remaining(await b.request('GET', '/events'))],
        [99, 98],
        'shared while Redis answers',
      )

      await proxy.cut()
      const down = await untilRedis(a, 'down')
      assert.deepEqual(down.json().checks, { database: 'up', redis: 'down' })
      assert.deepEqual(down.json().details, {
        redis: 'Redis cannot be reached: rate limits are counted by this instance alone until it is back',
      })
      const alone = [await a.request('GET', '/events'), await a.request('GET', '/events')]
      assert.deepEqual(
        alone.map((res) => [res.status, remaining(res)]),
        [
          [200, 99],
          [200, 98],
        ],
        'A serves and counts its own requests from a fresh local window',
      )
      assert.equal(remaining(await b.request('GET', '/events')), 97, 'B still counts in Redis, without A')
      assert.equal(log.messages('warn', localLine), 1, 'the fallback is logged once, not per request')

      await proxy.restore()
      await untilRedis(a, 'up')
      assert.equal(remaining(await a.request('GET', '/events')), 96, 'A counts in Redis again, with B')
      assert.equal(log.messages('warn', localLine), 1)
      assert.equal(log.messages('info', sharedLine), 2, 'logged at the first connection and on the return')
    } finally {
      await proxy.close()
    }
  })

  it('starts and serves with local counters when nothing listens at REDIS_URL', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
      })
    })
    const log = recordingLogger()
    const service = await start(
      sqlite,
      { rateLimitReads: '3', redisUrl: `redis://127.0.0.1:${port}` },
      { rateLimitKeyPrefix: newPrefix(), ...log },
    )
    const res = await service.request('GET', '/events')
    assert.equal(res.status, 200)
    assert.equal(res.header('ratelimit')?.replace(/;t=\d+$/, ''), '"reads";r=2')
    await untilRedis(service, 'down')
    for (let i = 0; i < 2; i++) assert.equal((await service.request('GET', '/events')).status, 200)
    assert.equal((await service.request('GET', '/events')).status, 429, 'the local limit holds')
    assert.equal(log.messages('warn', localLine), 1)
  })
})

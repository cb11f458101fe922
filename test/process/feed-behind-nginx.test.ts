// A change feed through a real nginx with its default settings (proxy buffering on): the service's
// X-Accel-Buffering: no keeps nginx from holding messages back until its buffer fills.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Nginx, nginxSkipReason, startNginx } from '../support/nginx.ts'
import { startService, type TestService } from '../support/service.ts'
import { type Feed, openFeed } from '../support/sse.ts'
import { storeTargets } from '../support/stores.ts'

const [sqlite] = storeTargets

describe('[sqlite] a change feed through nginx', { skip: nginxSkipReason }, () => {
  let service: TestService
  let nginx: Nginx
  let feed: Feed | undefined

  before(async () => {
    if (!sqlite) return
    service = await startService(sqlite, { feedHeartbeatMs: '60000' })
    nginx = await startNginx([{ prefix: '/api', upstreamPort: service.port }])
  })
  after(async () => {
    feed?.close()
    await nginx?.stop()
    await service?.close()
  })

  // A buffering proxy would hold back even the headers: fail rather than wait for ever.
  it('passes each message on at once, not when a buffer fills', { timeout: 10_000 }, async () => {
    feed = await openFeed(`${nginx.origin}/api`)
    assert.equal(feed.status, 200)
    assert.equal(feed.headers['content-type'], 'text/event-stream')
    const location = await service.store.createLocation({ name: 'Hall', address: '1 Square' })
    // One small message, far below nginx's buffer, and no heartbeat to push it through.
    const event = await service.store.createEvent({
      title: 'Through nginx',
      date: 0,
      locationId: location.id,
    })
    const [created] = await feed.take(1, 2_000)
    assert.equal(JSON.parse(created?.data ?? '').id, event.id)
  })
})

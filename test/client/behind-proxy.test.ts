// The client behind a real nginx that maps a path prefix to the service: with the prefix in its
// base URL it pages, reads and writes, whether the service writes Link as paths (a proxy it does
// not trust) or as absolute URLs at the proxy's address (TRUST_PROXY).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { EventServiceClient } from '../../src/client/index.ts'
import { type Nginx, nginxSkipReason, startNginx } from '../support/nginx.ts'
import { editor, startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

for (const target of storeTargets) {
  describe(`[${target.name}] the client through nginx under a path prefix`, { skip: nginxSkipReason }, () => {
    let trusting: TestService
    let plain: TestService
    let nginx: Nginx

    before(async () => {
      trusting = await startService(target, { trustProxy: '127.0.0.1' })
      plain = await startService(target)
      for (const service of [trusting, plain]) {
        const location = await service.store.createLocation({ name: 'Town Hall', address: '1 Market Square' })
        for (let n = 1; n <= 5; n++) {
          await service.store.createEvent({
            title: `Event ${n}`,
            date: Date.UTC(2027, 0, n),
            locationId: location.id,
          })
        }
      }
      nginx = await startNginx([
        { prefix: '/api', upstreamPort: trusting.port },
        { prefix: '/plain', upstreamPort: plain.port },
      ])
    })
    after(async () => {
      await nginx?.stop()
      await trusting?.close()
      await plain?.close()
    })

    for (const prefix of ['/api', '/plain']) {
      it(`pages, follows links and writes under ${prefix}`, async () => {
        const client = new EventServiceClient({ baseUrl: `${nginx.origin}${prefix}`, credentials: editor })
        const titles = []
        for await (const event of client.events.all({ perPage: 2 })) titles.push(event.title)
        assert.deepEqual(titles, ['Event 1', 'Event 2', 'Event 3', 'Event 4', 'Event 5'])
        const first = await client.events.list({ perPage: 2 })
        assert.ok(
          first.links.next?.href.startsWith(`${nginx.origin}${prefix}/events?`),
          first.links.next?.href,
        )
        const event = await client.events.get(first.items[0]?.id ?? 0)
        assert.equal((await client.locations.of(event)).name, 'Town Hall')
        const patched = await client.events.patch(event, { title: 'Renamed behind the proxy' })
        assert.equal(patched.title, 'Renamed behind the proxy')
      })
    }
  })
}

// `total` is kept by the writes (store/event-count.ts), not counted per page. Two server processes
// on one database create and delete events at the same time; every page read meanwhile must carry
// a total equal to the events on that very page (the whole collection fits on one page), and once
// the writes stop, both instances' totals must equal a full count of the table.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { directQuery } from '../support/direct-sql.ts'
import { startTwoInstances } from '../support/process.ts'
import { basic, type Response, send } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const admin = basic('admin', 'admin-password-1')
const eventType = 'application/vnd.service.event+json'
/** Kept under the largest page, so that one page holds the whole collection. */
const mostEvents = 80
const writeMs = 4_000

/** The events in collection order and their count, straight from the database, beside the service. */
async function fullCount(databaseUrl: string): Promise<{ total: number; ids: number[] }> {
  const ids = await directQuery<{ id: number }>(databaseUrl, 'select id from events order by starts_at, id')
  const [counted] = await directQuery<{ n: number }>(databaseUrl, 'select count(*) as n from events')
  return { total: Number(counted?.n), ids: ids.map((r) => Number(r.id)) }
}

for (const target of storeTargets) {
  describe(`[${target.name}] total under concurrent creates and deletes from two instances`, () => {
    let pair: Awaited<ReturnType<typeof startTwoInstances>>
    const on = (n: number) => pair.on(n)
    const page = (n: number) => send(on(n).baseUrl, 'GET', '/events?per_page=100')

    before(async () => {
      pair = await startTwoInstances(target)
    })

    after(() => pair?.stop())

    it('every page agrees with its total while writes run, and the total equals a full count after', async () => {
      const first = await page(0)
      assert.equal(first.status, 200, first.text)
      const live = new Set<number>(first.json().events.map((e: { id: number }) => e.id))
      // The seed's first location (ids start at 1 on every store).
      const locationId = 1
      const stopAt = Date.now() + writeMs
      const failures: string[] = []
      let writes = 0
      let reads = 0

      const writer = async (w: number) => {
        for (let i = 0; Date.now() < stopAt; i++) {
          const n = w + i
          const victim = live.size > mostEvents / 2 ? [...live][(w * 7 + i) % live.size] : undefined
          if (victim !== undefined && (live.size >= mostEvents || n % 2 === 1)) {
            live.delete(victim)
            const res = await send(on(n).baseUrl, 'DELETE', `/events/${victim}`, {
              headers: { authorization: admin },
            })
            // Another writer may have deleted it first: 404 is fine, anything else is not.
            if (res.status !== 204 && res.status !== 404) failures.push(`DELETE ${res.status} ${res.text}`)
          } else {
            const res = await send(on(n).baseUrl, 'POST', '/events', {
              headers: { authorization: admin, 'content-type': eventType },
              body: { title: `count ${w}-${i}`, date: '2026-12-04T19:30:00Z', location_id: locationId },
            })
            if (res.status === 201) live.add(res.json().id)
            else failures.push(`POST ${res.status} ${res.text}`)
          }
          writes++
        }
      }

      const reader = async (r: number) => {
        for (let i = 0; Date.now() < stopAt; i++) {
          const res: Response = await page(r + i)
          reads++
          if (res.status !== 200) {
            failures.push(`GET ${res.status} ${res.text}`)
            continue
          }
          const { total, events } = res.json()
          if (total !== events.length)
            failures.push(`total ${total} beside ${events.length} events on the page`)
        }
      }

      await Promise.all([...[0, 1, 2, 3, 4, 5].map(writer), ...[0, 1].map(reader)])
      assert.deepEqual(
        failures.slice(0, 5),
        [],
        `${failures.length} failures in ${writes} writes, ${reads} reads`,
      )
      assert.ok(writes > 20 && reads > 20, `enough traffic: ${writes} writes, ${reads} reads`)

      const counted = await fullCount(pair.databaseUrl)
      for (const n of [0, 1]) {
        const res = await page(n)
        assert.equal(res.json().total, counted.total, `instance ${n}'s total against count(*)`)
        assert.deepEqual(
          res.json().events.map((e: { id: number }) => e.id),
          counted.ids,
          `instance ${n}'s page holds every event`,
        )
      }
    })
  })
}

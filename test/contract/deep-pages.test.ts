// Pages far into the collection are found from per-bucket counts kept by triggers
// (store/event-buckets.ts), not by OFFSET over the whole order. Whatever path a page takes, it
// must hold exactly the events OFFSET over a full table read would give, on both stores: with
// events on bucket boundaries, before 1970, crowded on one instant, and while two instances
// create, move and delete events.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bucketBits, deepPageOffset } from '../../src/store/event-buckets.ts'
import { directQuery, directWrite } from '../support/direct-sql.ts'
import { startTwoInstances } from '../support/process.ts'
import { basic, send } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const admin = basic('admin', 'admin-password-1')
const bucketMs = 2 ** bucketBits
const writeMs = 3_000
const deepStart = Date.UTC(2028, 0, 1)
/** Dates fall within this much either side of deepStart: about 13 buckets each way. */
const spreadMs = 40 * 24 * 3_600_000

interface Listed {
  id: number
  date: string
}

/**
 * Dates chosen to sit on and beside bucket edges, before 1970, crowded on one instant and spread
 * out, with the edges and the crowd past the deep-page offset. Dense: about 40 buckets hold them,
 * so that every page from position 2,000 on is found from the buckets on both stores (a store
 * pages by OFFSET while the buckets are many next to the offset: prefersBuckets).
 */
function seededDates(): number[] {
  let state = 42
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31
    return state / 2 ** 31
  }
  const edges = (from: number, count: number) =>
    Array.from({ length: count }, (_, k) => [-1, 0, 1].map((d) => (from + k) * bucketMs + d)).flat()
  const dates = edges(-3, 6)
  while (dates.length < deepPageOffset - 100) dates.push(deepStart - Math.floor(random() * spreadMs))
  dates.push(...edges(Math.ceil(deepStart / bucketMs), 10))
  for (let i = 0; i < 300; i++) dates.push(deepStart + 5 * bucketMs + 5)
  while (dates.length < deepPageOffset + 900) dates.push(deepStart + Math.floor(random() * spreadMs))
  return dates
}

const sameOrder = (a: Listed, b: Listed) => Date.parse(a.date) - Date.parse(b.date) || a.id - b.id

for (const target of storeTargets) {
  describe(`[${target.name}] deep pages from the date buckets`, () => {
    let pair: Awaited<ReturnType<typeof startTwoInstances>>
    const on = (n: number) => pair.on(n)
    const orderedIds = async () =>
      (
        await directQuery<{ id: number }>(pair.databaseUrl, 'select id from events order by starts_at, id')
      ).map((r) => Number(r.id))
    const listPage = async (n: number, page: number, perPage: number) => {
      const res = await send(on(n).baseUrl, 'GET', `/events?page=${page}&per_page=${perPage}`)
      assert.equal(res.status, 200, res.text)
      return res.json() as { total: number; events: Listed[] }
    }
    /** Every page, read alternately from both instances, against the table read in one go. */
    const assertEveryPageMatches = async (perPage: number) => {
      const expected = await orderedIds()
      const seen: number[] = []
      for (let page = 1; page <= Math.ceil(expected.length / perPage) + 1; page++) {
        const { total, events } = await listPage(page, page, perPage)
        assert.equal(total, expected.length, `total on page ${page}`)
        seen.push(...events.map((e) => e.id))
      }
      assert.deepEqual(seen, expected)
    }

    before(async () => {
      pair = await startTwoInstances(target)
      // Straight into the table, in batches: the triggers count them (total and buckets) as they
      // would any write (store/event-count.ts).
      const rows = seededDates().map((date, i) => `('deep ${i}', ${date}, 1)`)
      const statements: string[] = []
      for (let i = 0; i < rows.length; i += 500) {
        statements.push(
          `insert into events (title, starts_at, location_id) values ${rows.slice(i, i + 500).join(', ')}`,
        )
      }
      await directWrite(pair.databaseUrl, statements)
    })

    after(() => pair?.stop())

    it('every page, before and past the deep-page offset, holds what OFFSET over the whole order gives', async () => {
      await assertEveryPageMatches(100)
      // Pages of 7 straddling the offset where the buckets take over.
      const expected = await orderedIds()
      for (
        let page = Math.floor(deepPageOffset / 7) - 2;
        page <= Math.floor(deepPageOffset / 7) + 2;
        page++
      ) {
        const { events } = await listPage(page, page, 7)
        assert.deepEqual(
          events.map((e) => e.id),
          expected.slice((page - 1) * 7, page * 7),
          `page ${page} of 7`,
        )
      }
    })

    it('stays exact while two instances create, move and delete events, and the buckets equal a recount after', async () => {
      const live = await orderedIds()
      const stopAt = Date.now() + writeMs
      const failures: string[] = []
      let writes = 0
      let reads = 0
      // Within the seeded spread, so that moves cross buckets and the buckets stay few.
      const someDate = (n: number) =>
        new Date(deepStart - spreadMs + ((n * 7_919 * 60_000) % (2 * spreadMs))).toISOString()

      const writer = async (w: number) => {
        for (let i = 0; Date.now() < stopAt; i++) {
          const n = w * 1_000 + i
          const victim = live[(n * 31) % live.length] as number
          const headers = { authorization: admin, 'content-type': 'application/vnd.service.event+json' }
          let status: number
          if (i % 3 === 0) {
            const res = await send(on(n).baseUrl, 'POST', '/events', {
              headers,
              body: { title: `moving ${n}`, date: someDate(n), location_id: 1 },
            })
            if (res.status === 201) live.push(res.json().id)
            status = res.status === 201 ? 200 : res.status
          } else if (i % 3 === 1) {
            const res = await send(on(n).baseUrl, 'PATCH', `/events/${victim}`, {
              headers: { ...headers, 'content-type': 'application/merge-patch+json' },
              body: { date: someDate(n + 1) },
            })
            status = res.status === 404 ? 200 : res.status
          } else {
            if (live.includes(victim)) live.splice(live.indexOf(victim), 1)
            const res = await send(on(n).baseUrl, 'DELETE', `/events/${victim}`, { headers })
            status = res.status === 204 || res.status === 404 ? 200 : res.status
          }
          if (status !== 200) failures.push(`write ${status}`)
          writes++
        }
      }
      const reader = async (r: number) => {
        for (let i = 0; Date.now() < stopAt; i++) {
          const page = Math.floor(deepPageOffset / 50) + 1 + (i % 8)
          const { total, events } = await listPage(r + i, page, 50)
          const expectedLength = Math.max(0, Math.min(50, total - (page - 1) * 50))
          if (events.length !== expectedLength) failures.push(`page ${page}: ${events.length} of ${total}`)
          if (events.some((e, k) => k > 0 && sameOrder(events[k - 1] as Listed, e) >= 0)) {
            failures.push(`page ${page} out of order`)
          }
          reads++
        }
      }
      await Promise.all([...[0, 1, 2, 3].map(writer), ...[0, 1].map(reader)])
      assert.deepEqual(
        failures.slice(0, 5),
        [],
        `${failures.length} failures in ${writes} writes, ${reads} reads`,
      )
      assert.ok(writes > 20 && reads > 10, `enough traffic: ${writes} writes, ${reads} reads`)

      await assertEveryPageMatches(100)
      const kept = await directQuery<{ bucket: number; n: number }>(
        pair.databaseUrl,
        'select bucket, sum(count) as n from event_buckets group by bucket having sum(count) <> 0 order by bucket',
      )
      const recounted = await directQuery<{ bucket: number; n: number }>(
        pair.databaseUrl,
        `select starts_at >> ${bucketBits} as bucket, count(*) as n from events group by starts_at >> ${bucketBits} order by bucket`,
      )
      const plain = (rows: { bucket: number; n: number }[]) =>
        rows.map((r) => [Number(r.bucket), Number(r.n)])
      assert.deepEqual(plain(kept), plain(recounted))
    })
  })
}

// `ers recount` (store/recount.ts): counts damaged on purpose, behind the service's back, are
// found and repaired by the real command, while two service instances keep creating and deleting
// events; a second run finds nothing, and the service's `total` and the date buckets equal a full
// count of the rows.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { directQuery, directWrite } from '../support/direct-sql.ts'
import { runCli, startTwoInstances } from '../support/process.ts'
import { basic, send } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const admin = basic('admin', 'admin-password-1')
const eventType = 'application/vnd.service.event+json'
const day = 86_400_000

for (const target of storeTargets) {
  describe(`[${target.name}] ers recount`, () => {
    let pair: Awaited<ReturnType<typeof startTwoInstances>>
    let env: Record<string, string>

    before(async () => {
      pair = await startTwoInstances(target)
      env = { DATABASE_URL: pair.databaseUrl }
    })
    after(() => pair?.stop())

    const create = (n: number, date: number) =>
      send(pair.on(n).baseUrl, 'POST', '/events', {
        headers: { authorization: admin, 'content-type': eventType },
        body: { title: `recount ${n}`, date: new Date(date).toISOString(), location_id: 1 },
      })

    /** What the rows say, against what the counts keep, read beside the service. */
    async function counts() {
      const [rows] = await directQuery<{ n: number }>(pair.databaseUrl, 'select count(*) as n from events')
      const [total] = await directQuery<{ n: number }>(
        pair.databaseUrl,
        `select sum(value) as n from counters where name = 'events'`,
      )
      const buckets = await directQuery<{ bucket: number; n: number }>(
        pair.databaseUrl,
        'select bucket, sum(count) as n from event_buckets group by bucket having sum(count) <> 0 order by bucket',
      )
      const counted = await directQuery<{ bucket: number; n: number }>(
        pair.databaseUrl,
        'select starts_at >> 28 as bucket, count(*) as n from events group by starts_at >> 28 order by bucket',
      )
      const norm = (list: { bucket: number; n: number }[]) => list.map((r) => [Number(r.bucket), Number(r.n)])
      return {
        rows: Number(rows?.n),
        total: Number(total?.n),
        buckets: norm(buckets),
        counted: norm(counted),
      }
    }

    it('finds and repairs damaged counts while the service writes, then finds them right', async () => {
      // Known events in a known bucket, then damage: the total off by 7, one bucket off by 3, and a
      // bucket that holds no event counted as 5.
      const base = Date.UTC(2031, 5, 1)
      for (let i = 0; i < 6; i++) assert.equal((await create(i, base + i * 1000)).status, 201)
      const bucket = Math.floor(base / 2 ** 28)
      const empty = bucket + 1_000
      await directWrite(pair.databaseUrl, [
        `update counters set value = value + 7 where name = 'events' and shard = 3`,
        // An upsert: on PostgreSQL the creates spread the bucket's count over shards at random.
        `insert into event_buckets (bucket, shard, count) values (${bucket}, 0, -3)
           on conflict (bucket, shard) do update set count = event_buckets.count + excluded.count`,
        `insert into event_buckets (bucket, shard, count) values (${empty}, 1, 5)`,
      ])
      const damaged = await counts()
      assert.equal(damaged.total, damaged.rows + 7)

      // Writes go on beside the recount, in other buckets than the damaged ones.
      let writing = true
      const statuses: number[] = []
      const writers = [0, 1].map(async (w) => {
        for (let i = 0; writing; i++) {
          const res = await create(w + i, Date.UTC(2020, 0, 1) + (i % 50) * day)
          statuses.push(res.status)
          if (res.status === 201 && i % 3 === 0) {
            const id = res.json().id as number
            const gone = await send(pair.on(w + i + 1).baseUrl, 'DELETE', `/events/${id}`, {
              headers: { authorization: admin },
            })
            statuses.push(gone.status)
          }
        }
      })
      const first = await runCli(['recount'], env)
      writing = false
      await Promise.all(writers)
      assert.equal(first.code, 0, first.stderr)
      const lines = first.stdout.trim().split('\n')
      const events = Number(/: (\d+) events$/.exec(lines.at(-1) ?? '')?.[1])
      assert.ok(events >= 6, first.stdout)
      assert.deepEqual(lines, [
        `total: kept ${events + 7}, counted ${events}`,
        `events from ${new Date(bucket * 2 ** 28).toISOString()} (bucket ${bucket}): kept 3, counted 6`,
        `events from ${new Date(empty * 2 ** 28).toISOString()} (bucket ${empty}): kept 5, counted 0`,
        `repaired 3 counts: ${events} events`,
      ])
      assert.ok(statuses.length > 0)
      assert.deepEqual(
        statuses.filter((s) => s !== 201 && s !== 204),
        [],
        'every write beside the recount succeeded',
      )

      const second = await runCli(['recount'], env)
      assert.equal(second.code, 0, second.stderr)
      const after = await counts()
      assert.equal(second.stdout, `counts are right: ${after.rows} events\n`)
      assert.equal(after.total, after.rows)
      assert.deepEqual(after.buckets, after.counted)
      for (const n of [0, 1]) {
        const page = await send(pair.on(n).baseUrl, 'GET', '/events?per_page=1')
        assert.equal(page.json().total, after.rows)
      }
    })
  })
}

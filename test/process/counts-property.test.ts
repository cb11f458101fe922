// One source for counts (store/event-count.ts), as a property: two service instances take random
// creates, deletes and date moves while `ers import` loads events beside them; after every step
// the kept total equals a count of the rows and every date bucket equals a count of its rows (one
// statement, so one snapshot), and the pages over the steps' own events, shallow and deep (from
// the buckets), hold what the test's model of them says, on both instances.
//
// The steps' events are dated in 2001 and the import's in 2030, so the first pages of the
// collection hold only events the steps wrote: their contents are known exactly while the import
// goes on. Above the page total, the import shows on PostgreSQL all at once (one transaction), on
// SQLite chunk by chunk, never going back (import-events.ts).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { directQuery, directWrite } from '../support/direct-sql.ts'
import { runCli, startTwoInstances } from '../support/process.ts'
import { basic, send } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const admin = basic('admin', 'admin-password-1')
const eventType = 'application/vnd.service.event+json'
const mergePatch = 'application/merge-patch+json'
const day = 86_400_000
/** The steps' dates: 40 days from here, about 13 date buckets. */
const ours = Date.UTC(2001, 0, 1)
/** Events of the steps before the first step: more than the deep-page offset (2,000). */
const seeded = 2_400
const imported = 30_000
const leastSteps = 120

/** A small deterministic generator (mulberry32), so that a failure can be run again. */
function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** In one statement: the kept total, the rows, and the buckets whose kept count is not their rows'. */
const invariants = `select
  (select coalesce(sum(value), 0) from counters where name = 'events') as kept,
  (select count(*) from events) as counted,
  (select count(*) from (
    select bucket, sum(n) as off from (
      select bucket, count as n from event_buckets
      union all select starts_at >> 28, -1 from events
    ) as both_ group by bucket having sum(n) <> 0
  ) as wrong) as wrong_buckets`

for (const target of storeTargets) {
  describe(`[${target.name}] counts, buckets and pages beside an import`, () => {
    let pair: Awaited<ReturnType<typeof startTwoInstances>>
    let dir: string

    before(async () => {
      pair = await startTwoInstances(target)
      dir = mkdtempSync(join(tmpdir(), 'ers-counts-'))
    })
    after(async () => {
      await pair?.stop()
      rmSync(dir, { recursive: true, force: true })
    })

    it('agree with a full count after every step', async () => {
      const seed = Number(process.env.PROPERTY_SEED ?? Date.now() % 100_000)
      const next = random(seed)
      const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T
      const note = `seed ${seed} (PROPERTY_SEED=${seed} runs it again)`

      // The steps' events before the first step, straight into the table (the triggers count them).
      const values = Array.from(
        { length: seeded },
        (_, i) => `('seeded ${i}', ${ours + Math.floor(next() * 40 * day)}, 1)`,
      )
      await directWrite(
        pair.databaseUrl,
        Array.from(
          { length: Math.ceil(seeded / 500) },
          (_, i) =>
            `insert into events (title, starts_at, location_id) values ${values.slice(i * 500, i * 500 + 500).join(', ')}`,
        ),
      )
      /** The model: every event of the steps, by id, with its date. */
      const model = new Map<number, number>()
      for (const row of await directQuery<{ id: number; starts_at: number }>(
        pair.databaseUrl,
        `select id, starts_at from events where starts_at < ${ours + 100 * day}`,
      )) {
        model.set(Number(row.id), Number(row.starts_at))
      }

      const file = join(dir, 'import.json')
      const events = Array.from({ length: imported }, (_, i) => ({
        title: `imported ${i}`,
        date: new Date(Date.UTC(2030, 0, 1) + i * 60_000).toISOString(),
      }))
      writeFileSync(
        file,
        JSON.stringify({ locations: [{ name: 'Import hall', address: 'Import road', events }] }),
      )
      let importDone = false
      const importRun = runCli(['import', file], { DATABASE_URL: pair.databaseUrl }).finally(() => {
        importDone = true
      })

      let seenImported = 0
      let steps = 0
      let stepsDuringImport = 0
      const stepLog: string[] = []
      while (!importDone || steps < leastSteps) {
        steps++
        if (!importDone) stepsDuringImport++
        const on = pair.on(Math.floor(next() * 2)).baseUrl
        const date = ours + Math.floor(next() * 40 * day)
        const kind = next()
        const ids = [...model.keys()]
        if (kind < 0.4 || ids.length === 0) {
          const res = await send(on, 'POST', '/events', {
            headers: { authorization: admin, 'content-type': eventType },
            body: { title: `step ${steps}`, date: new Date(date).toISOString(), location_id: 1 },
          })
          assert.equal(res.status, 201, `${note}: ${res.text}`)
          model.set(res.json().id, date)
          stepLog.push(`create ${res.json().id}`)
        } else if (kind < 0.7) {
          const id = pick(ids)
          const res = await send(on, 'DELETE', `/events/${id}`, { headers: { authorization: admin } })
          assert.equal(res.status, 204, `${note}: ${res.text}`)
          model.delete(id)
          stepLog.push(`delete ${id}`)
        } else {
          const id = pick(ids)
          const res = await send(on, 'PATCH', `/events/${id}`, {
            headers: { authorization: admin, 'content-type': mergePatch },
            body: { date: new Date(date).toISOString() },
          })
          assert.equal(res.status, 200, `${note}: ${res.text}`)
          model.set(id, date)
          stepLog.push(`move ${id}`)
        }
        const where = `${note}, after step ${steps} (${stepLog.slice(-3).join(', ')})`

        const [row] = await directQuery<{ kept: number; counted: number; wrong_buckets: number }>(
          pair.databaseUrl,
          invariants,
        )
        assert.equal(Number(row?.kept), Number(row?.counted), `total: ${where}`)
        assert.equal(Number(row?.wrong_buckets), 0, `buckets: ${where}`)

        // A page of the steps' own events, shallow or deep, through either instance.
        const order = [...model].sort(([a, da], [b, db]) => da - db || a - b).map(([id]) => id)
        const page = 1 + Math.floor(next() * Math.floor(order.length / 100))
        const res = await send(pair.on(steps).baseUrl, 'GET', `/events?per_page=100&page=${page}`)
        assert.equal(res.status, 200, res.text)
        const body = res.json() as { total: number; events: { id: number }[] }
        assert.deepEqual(
          body.events.map((e) => e.id),
          order.slice((page - 1) * 100, page * 100),
          `page ${page}: ${where}`,
        )
        // Beside the steps' events (and the 32 of the seed's sample, dated 2026), the import's.
        const others = body.total - order.length - 32
        assert.ok(others >= seenImported, `the import went back from ${seenImported} to ${others}: ${where}`)
        if (target.name === 'postgres') assert.ok(others === 0 || others === imported, `${others}: ${where}`)
        seenImported = others
      }

      const result = await importRun
      assert.equal(result.code, 0, result.stderr)
      assert.ok(stepsDuringImport > 0, 'some steps ran beside the import')
      assert.match(result.stdout, new RegExp(`imported 1 locations and ${imported} events`))
      // Quiet now: a deep page inside the import's events equals OFFSET over the rows.
      const total = model.size + 32 + imported
      for (const page of [Math.floor(total / 100) - 3, Math.floor(total / 200)]) {
        const res = await send(pair.on(page).baseUrl, 'GET', `/events?per_page=100&page=${page}`)
        const rows = await directQuery<{ id: number }>(
          pair.databaseUrl,
          `select id from events order by starts_at, id limit 100 offset ${(page - 1) * 100}`,
        )
        assert.equal(res.json().total, total)
        assert.deepEqual(
          res.json().events.map((e: { id: number }) => e.id),
          rows.map((r) => Number(r.id)),
          `page ${page} after the import: ${note}`,
        )
      }
    })
  })
}

// Property: a date range's page read from the date buckets (store/date-range-page.ts) is exactly
// the page the plain filtered statement (store/filtered-page.ts) gives: the same total and the
// same rows in the same order, for ranges that begin and end anywhere around bucket boundaries,
// open ends, and pages past the last. Events are crowded at the boundaries (a millisecond either
// side of one, and on it), several to an instant.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import type { Kysely } from 'kysely'
import { dateRangePageQuery } from '../../src/store/date-range-page.ts'
import { openPostgres } from '../../src/store/dialects/postgres.ts'
import { openSqlite } from '../../src/store/dialects/sqlite.ts'
import { bucketBits } from '../../src/store/event-buckets.ts'
import { filteredPageQuery } from '../../src/store/filtered-page.ts'
import type { SqlFlavour } from '../../src/store/flavour.ts'
import { KyselyStore } from '../../src/store/kysely-store.ts'
import type { Database } from '../../src/store/schema.ts'
import { storeTargets } from '../support/stores.ts'

const size = 2 ** bucketBits
const base = Math.floor(Date.UTC(2027, 0, 1) / size) // a bucket number
// Instants around the boundaries of six buckets.
const instants = Array.from({ length: 7 }, (_, b) =>
  [-1, 0, 1, 1000].map((d) => (base + b) * size + d),
).flat()
// Bounds before and after every event.
const outside = [(base - 1) * size, (base + 8) * size]

for (const target of storeTargets) {
  describe(`[${target.name}] a date range's page from the buckets`, () => {
    let drop: () => Promise<void>
    let store: KyselyStore
    let db: Kysely<Database>
    let flavour: SqlFlavour

    before(async () => {
      const database = await target.create()
      drop = database.drop
      const path = database.databaseUrl.replace(/^sqlite:/, '')
      const dialect =
        target.name === 'sqlite'
          ? openSqlite(path)
          : openPostgres(database.databaseUrl, {
              poolSize: 2,
              pooler: database.settings?.databasePooler === 'transaction' ? 'transaction' : 'none',
            })
      db = dialect.db
      flavour = dialect.flavour
      store = new KyselyStore(dialect)
      await store.migrate()
      // Three events on most instants, none on some: 0..3 by position.
      const events = instants.flatMap((date, i) =>
        Array.from({ length: i % 4 }, (_, k) => ({ title: `event ${i}.${k}`, date })),
      )
      await store.importLocations([{ name: 'Hall', address: '1 Street', events }])
    })
    after(async () => {
      await store?.close()
      await drop?.()
    })

    it('answers what the filtered statement answers', async () => {
      const bound = fc.option(fc.constantFrom(...instants, ...outside), {
        nil: undefined,
      })
      await fc.assert(
        fc.asyncProperty(
          bound,
          bound,
          fc.integer({ min: 1, max: 8 }),
          fc.integer({ min: 1, max: 7 }),
          async (from, to, page, perPage) => {
            fc.pre(from !== undefined || to !== undefined)
            const filter = { from, to }
            const paging = { page, perPage }
            const expected = await filteredPageQuery(db, flavour, paging, filter).execute()
            const actual = (await db.executeQuery(dateRangePageQuery(db, paging, filter))).rows
            const plain = (rows: readonly Record<string, unknown>[]) =>
              rows.map((row) =>
                Object.fromEntries(
                  Object.entries(row).map(([k, v]) => [
                    k,
                    v === null ? null : Number.isNaN(Number(v)) ? v : Number(v),
                  ]),
                ),
              )
            assert.deepEqual(plain(actual), plain(expected), JSON.stringify({ filter, paging }))
          },
        ),
        { numRuns: 150 },
      )
    })
  })
}

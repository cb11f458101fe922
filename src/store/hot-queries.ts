// The reads made on (almost) every request, compiled once per store (compiled.ts). Columns are
// named rather than `*`: PostgreSQL refuses to reuse a prepared statement whose result columns a
// later migration changed, and a named list keeps the result the same when a column is added.
import { type InferResult, type Kysely, sql } from 'kysely'
import { compileOnce } from './compiled.ts'
import { deepPage } from './event-buckets.ts'
import { eventTotal } from './event-count.ts'
import type { Database } from './schema.ts'

const eventColumns = ['id', 'title', 'starts_at', 'location_id', 'version'] as const
const locationColumns = ['id', 'name', 'address', 'version'] as const
const userColumns = ['id', 'name', 'role', 'password_hash'] as const
const apiKeyColumns = ['id', 'name', 'role', 'sealed_secret', 'created_at', 'revoked_at'] as const

const locationTotal = sql<number>`(select count(*) from locations)`

export type HotQueries = ReturnType<typeof hotQueries>

export function hotQueries(db: Kysely<Database>) {
  /**
   * A page of events in the collection's order (date, then id), each row carrying the total,
   * so that page and total come from one statement and so one snapshot.
   */
  const page = db
    .selectFrom('events')
    .select(eventColumns)
    .select(eventTotal().as('total'))
    .orderBy('starts_at')
    .orderBy('id')
    .limit(-1)
    .offset(-2)
  return {
    /** One event by id. */
    event: compileOnce(db.selectFrom('events').select(eventColumns).where('id', '=', -1), [-1]),
    page: compileOnce(page, [-1, -2]),
    /** The same rows far into the collection, found from the date buckets: (offset, limit, offset). */
    deepPage: deepPage<InferResult<typeof page>[number]>(db, eventColumns),
    /** How many rows the date buckets have, to choose between the two (event-buckets.ts). */
    bucketRows: compileOnce(
      db.selectFrom('event_buckets').select((eb) => eb.fn.countAll<number>().as('rows')),
      [],
    ),
    /** The total alone, for a page past the end. */
    total: compileOnce(db.selectNoFrom(eventTotal().as('total')), []),
    location: compileOnce(db.selectFrom('locations').select(locationColumns).where('id', '=', -1), [-1]),
    /**
     * A page of locations in id order, each row carrying the total. Locations are few next to
     * events, so they are counted rather than kept in a counter.
     */
    locationPage: compileOnce(
      db
        .selectFrom('locations')
        .select(locationColumns)
        .select(locationTotal.as('total'))
        .orderBy('id')
        .limit(-1)
        .offset(-2),
      [-1, -2],
    ),
    locationTotal: compileOnce(db.selectNoFrom(locationTotal.as('total')), []),
    /** Every authenticated request looks its user up (behind the credential cache). */
    user: compileOnce(db.selectFrom('users').select(userColumns).where('name', '=', '\u0000'), ['\u0000']),
    /** Every signed request looks its key up. */
    apiKey: compileOnce(db.selectFrom('api_keys').select(apiKeyColumns).where('id', '=', '\u0000'), [
      '\u0000',
    ]),
  }
}

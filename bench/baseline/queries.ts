// What the baseline asks of its database: four prepared statements, nothing else.
import type { EventRow } from './represent.ts'

export interface BaselineQueries {
  getEvent(id: number): Promise<EventRow | undefined>
  /** One page in date-then-id order and the total, read in one statement (one snapshot). */
  page(limit: number, offset: number): Promise<{ total: number; rows: EventRow[] }>
  updateEvent(id: number, title: string, startsAt: number): Promise<EventRow | undefined>
  insertEvent(title: string, startsAt: number, locationId: number): Promise<EventRow>
  close(): Promise<void>
}

// The same statement shapes the service's store uses, so both ask the database the same questions.
export const sql = {
  get: 'select id, title, starts_at, location_id, version from events where id = $1',
  page:
    'select id, title, starts_at, location_id, version, (select count(*) from events) as total ' +
    'from events order by starts_at, id limit $1 offset $2',
  count: 'select count(*) as total from events',
  update:
    'update events set title = $1, starts_at = $2, version = version + 1 where id = $3 ' +
    'returning id, title, starts_at, location_id, version',
  insert:
    'insert into events (title, starts_at, location_id) values ($1, $2, $3) ' +
    'returning id, title, starts_at, location_id, version',
}

export interface Row {
  id: number | string
  title: string
  starts_at: number | string
  location_id: number | string
  version: number | string
  total?: number | string
}

export const toRow = (r: Row): EventRow => ({
  id: Number(r.id),
  title: r.title,
  startsAt: Number(r.starts_at),
  locationId: Number(r.location_id),
  version: Number(r.version),
})

// Rows become domain objects here, and only here.
import type { Selectable } from 'kysely'
import { type Event, type Location, type Role, roles, type User } from '../domain/types.ts'
import type { StoredApiKey } from './event-store.ts'
import type { Database } from './schema.ts'

/** The columns an event is made of; `title_folded` only serves the search. */
type EventRow = Pick<Selectable<Database['events']>, 'id' | 'title' | 'starts_at' | 'location_id' | 'version'>

export const toEvent = (row: EventRow): Event => ({
  id: Number(row.id),
  title: row.title,
  date: Number(row.starts_at),
  locationId: Number(row.location_id),
  version: Number(row.version),
})

export const toLocation = (row: Selectable<Database['locations']>): Location => ({
  id: Number(row.id),
  name: row.name,
  address: row.address,
  version: Number(row.version),
})

export const toUser = (row: Selectable<Database['users']>): User => ({
  id: Number(row.id),
  name: row.name,
  role: roles.includes(row.role as Role) ? (row.role as Role) : 'reader',
  passwordHash: row.password_hash,
})

export const toApiKey = (row: Selectable<Database['api_keys']>): StoredApiKey => ({
  id: row.id,
  name: row.name,
  // Unknown roles (none exist: the column is checked) would read as the weaker one.
  role: roles.includes(row.role as Role) ? (row.role as Role) : 'reader',
  createdAt: Number(row.created_at),
  revokedAt: row.revoked_at === null ? undefined : Number(row.revoked_at),
  sealedSecret: row.sealed_secret,
})

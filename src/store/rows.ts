// Rows become domain objects here, and only here.
import type { Selectable } from 'kysely'
import { type Event, type Location, type Role, roles, type User } from '../domain/types.ts'
import type { Database } from './schema.ts'

export const toEvent = (row: Selectable<Database['events']>): Event => ({
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

// The locations: pages, one or several by id, a lookup by name and address, and their writes.
import { offsetOf } from '../../domain/paging.ts'
import type { LocationChanges, Page, Precondition } from '../../domain/types.ts'
import type { NewLocation } from '../event-store.ts'
import { toLocation } from '../rows.ts'
import { deleteLocation } from '../writes/locations.ts'
import { requireStorable } from '../writes/stored-text.ts'
import { updateVersioned } from '../writes/versioned.ts'
import type { StoreContext } from './context.ts'

export class LocationRepository {
  constructor(private readonly ctx: StoreContext) {}

  async list(page: Page) {
    const { ctx } = this
    return ctx.guard(async () => {
      const { total, rows } = await ctx.page(
        ctx.hot.locationPage(page.perPage, offsetOf(page)),
        ctx.hot.locationTotal(),
      )
      return { total, locations: rows.map(toLocation) }
    })
  }

  get(id: number) {
    return this.ctx.read(this.ctx.hot.location(id), ([row]) => row && toLocation(row), true)
  }

  async getMany(ids: readonly number[]) {
    if (ids.length === 0) return []
    // One statement for a page's worth of ids (the HTML list names each event's location).
    const distinct = [...new Set(ids)]
    return this.ctx.guard(async () => {
      const rows = await this.ctx.readPlain(
        this.ctx.db.selectFrom('locations').selectAll().where('id', 'in', distinct).orderBy('id').compile(),
      )
      return rows.map(toLocation)
    })
  }

  async create(location: NewLocation) {
    return this.ctx.write(async (trx) => {
      requireStorable('/name', location.name)
      requireStorable('/address', location.address)
      const values = { name: location.name, address: location.address }
      return toLocation(
        await trx.insertInto('locations').values(values).returningAll().executeTakeFirstOrThrow(),
      )
    })
  }

  async find(location: NewLocation) {
    return this.ctx.guard(async () => {
      const row = await this.ctx.db
        .selectFrom('locations')
        .selectAll()
        .where('name', '=', location.name)
        .where('address', '=', location.address)
        .orderBy('id')
        .executeTakeFirst()
      return row && toLocation(row)
    })
  }

  async update(id: number, changes: LocationChanges, precondition?: Precondition) {
    return this.ctx.write(async (trx) => {
      requireStorable('/name', changes.name)
      requireStorable('/address', changes.address)
      return toLocation(await updateVersioned(trx, 'locations', id, changes, precondition))
    })
  }

  async delete(id: number, precondition?: Precondition) {
    await this.ctx.write((trx) => deleteLocation(trx, this.ctx.flavour, id, precondition))
  }
}

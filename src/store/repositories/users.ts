// The users: who may sign in, with which role and password hash.
import type { Role } from '../../domain/types.ts'
import { toUser } from '../rows.ts'
import type { StoreContext } from './context.ts'

export class UserRepository {
  constructor(private readonly ctx: StoreContext) {}

  find(name: string) {
    return this.ctx.read(this.ctx.hot.user(name), ([row]) => row && toUser(row))
  }

  async list() {
    return this.ctx.guard(async () => {
      const rows = await this.ctx.db.selectFrom('users').selectAll().execute()
      // Sorted here, by code point: SQL's ORDER BY follows each database's collation, and the
      // same users must list in the same order on every store.
      return rows.map(toUser).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    })
  }

  async put(name: string, role: Role, passwordHash: string) {
    return this.ctx.write(async (trx) => {
      const row = await trx
        .insertInto('users')
        .values({ name, role, password_hash: passwordHash })
        .onConflict((oc) => oc.column('name').doUpdateSet({ role, password_hash: passwordHash }))
        .returningAll()
        .executeTakeFirstOrThrow()
      return toUser(row)
    })
  }

  async replacePasswordHash(name: string, expected: string, replacement: string) {
    return this.ctx.write(async (trx) => {
      const result = await trx
        .updateTable('users')
        .set({ password_hash: replacement })
        .where('name', '=', name)
        .where('password_hash', '=', expected)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    })
  }

  async remove(name: string) {
    return this.ctx.write(async (trx) => {
      const result = await trx.deleteFrom('users').where('name', '=', name).executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    })
  }

  async createFirst(name: string, role: Role, passwordHash: string) {
    return this.ctx.write(async (trx) => {
      // Without it, two callers under READ COMMITTED could both see no user and insert two names.
      await this.ctx.exclusive(trx, 'first-user')
      const existing = await trx.selectFrom('users').select('id').limit(1).executeTakeFirst()
      if (existing) return false
      const inserted = await trx
        .insertInto('users')
        .values({ name, role, password_hash: passwordHash })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst()
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0
    })
  }
}

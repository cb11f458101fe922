// The API keys that sign requests (http/signature-auth.ts).
import type { StoredApiKey } from '../event-store.ts'
import { toApiKey } from '../rows.ts'
import type { StoreContext } from './context.ts'

export class ApiKeyRepository {
  constructor(private readonly ctx: StoreContext) {}

  async create(key: Omit<StoredApiKey, 'revokedAt'>) {
    return this.ctx.write(async (trx) => {
      const row = await trx
        .insertInto('api_keys')
        .values({
          id: key.id,
          name: key.name,
          role: key.role,
          sealed_secret: key.sealedSecret,
          created_at: key.createdAt,
          revoked_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
      const { sealedSecret: _, ...apiKey } = toApiKey(row)
      return apiKey
    })
  }

  find(id: string) {
    return this.ctx.read(this.ctx.hot.apiKey(id), ([row]) => row && toApiKey(row))
  }

  async list() {
    return this.ctx.guard(async () => {
      const rows = await this.ctx.db
        .selectFrom('api_keys')
        .select(['id', 'name', 'role', 'created_at', 'revoked_at'])
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      return rows.map((row) => {
        const { sealedSecret: _, ...apiKey } = toApiKey({ ...row, sealed_secret: '' })
        return apiKey
      })
    })
  }

  async revoke(id: string, at: number) {
    return this.ctx.write(async (trx) => {
      await trx
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .execute()
      const row = await trx.selectFrom('api_keys').select('id').where('id', '=', id).executeTakeFirst()
      return row !== undefined
    })
  }
}

// What the store remembers of requests for a while: the nonces of signed requests (a replay is
// refused) and the idempotency keys of POSTs (a retry answers the first result, writes/events.ts).
import type { StoreContext } from './context.ts'

export class RequestKeyRepository {
  constructor(private readonly ctx: StoreContext) {}

  async rememberNonce(keyId: string, nonce: string, expiresAt: number) {
    // One statement, so no transaction around it: on PostgreSQL that is one round trip instead of
    // three. The primary key decides between concurrent inserts of one pair, on every store.
    return this.ctx.guard(async () => {
      const inserted = await this.ctx.db
        .insertInto('signature_nonces')
        .values({ key_id: keyId, nonce, expires_at: expiresAt })
        .onConflict((oc) => oc.columns(['key_id', 'nonce']).doNothing())
        .executeTakeFirst()
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0
    })
  }

  async forgetNonces(expiredBefore: number) {
    return this.ctx.write(async (trx) => {
      const result = await trx
        .deleteFrom('signature_nonces')
        .where('expires_at', '<', expiredBefore)
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    })
  }

  async forgetIdempotencyKeys(createdBefore: number) {
    return this.ctx.write(async (trx) => {
      const result = await trx
        .deleteFrom('idempotency_keys')
        .where('created_at', '<', createdBefore)
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    })
  }
}

// A signed write's nonce, spent by the write itself (domain/types.ts SignatureCheck): inserted only
// while the key still signs, so that one insert confirms the key and refuses a replay. Of
// concurrent inserts of one (key, nonce) pair, the primary key lets exactly one through, on every
// store; the others insert nothing, and their write is then a no-op (CredentialsChanged: the
// request is authenticated again in full, which tells a replay from a revoked key).
import { type QueryCreator, sql } from 'kysely'
import { CredentialsChanged } from '../../domain/errors.ts'
import {
  type CredentialCheck,
  isSignatureCheck,
  type PasswordCheck,
  type SignatureCheck,
  writingRoles,
} from '../../domain/types.ts'
import type { Executor } from '../executor.ts'
import type { Database } from '../schema.ts'

/** The key exists, is not revoked, is an editor's and still has the sealed secret that was checked. */
export const keyStillSigns = (keyId: unknown, sealedSecret: unknown) =>
  sql<boolean>`exists (select 1 from api_keys where id = ${keyId} and sealed_secret = ${sealedSecret} and revoked_at is null and role in (${sql.join(writingRoles)}))`

/** What spendNonce builds from: values or the slots of a statement compiled once (compiled.ts). */
export interface NonceValues {
  readonly keyId: unknown
  readonly sealedSecret: unknown
  readonly nonce: unknown
  readonly expiresAt: unknown
}

/**
 * INSERT of the nonce while the key still signs; nothing when it does not or when the pair was
 * spent before. `bigint` is cast: a bare parameter in a SELECT list is text to PostgreSQL.
 */
export function spendNonce(qb: QueryCreator<Database>, v: NonceValues) {
  return qb
    .insertInto('signature_nonces')
    .columns(['key_id', 'nonce', 'expires_at'])
    .expression(
      qb
        .selectNoFrom([
          sql<string>`${v.keyId}`.as('key_id'),
          sql<string>`${v.nonce}`.as('nonce'),
          sql<number>`cast(${v.expiresAt} as bigint)`.as('expires_at'),
        ])
        .where(keyStillSigns(v.keyId, v.sealedSecret)),
    )
    .onConflict((oc) => oc.columns(['key_id', 'nonce']).doNothing())
}

/** The check's values, for spendNonce. */
export const nonceValues = (check: SignatureCheck): NonceValues => ({
  keyId: check.keyId,
  sealedSecret: check.sealedSecret,
  nonce: check.nonce,
  expiresAt: check.nonceExpiresAt,
})

/**
 * Spends the nonce in the write's transaction (or alone, after a write that failed); false when
 * the key no longer signs or the nonce was spent before.
 */
export async function spentInTransaction(trx: Executor, check: SignatureCheck): Promise<boolean> {
  const result = await spendNonce(trx, nonceValues(check)).executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

/**
 * A write's check as its transaction confirms it: a signed write's nonce spent first, before
 * anything else is checked (a replay is refused, not told 404 or 422), else CredentialsChanged; a
 * user's password check left to the write's statement.
 */
export async function confirmedInTransaction(
  trx: Executor,
  check: CredentialCheck | undefined,
): Promise<PasswordCheck | undefined> {
  if (!check || !isSignatureCheck(check)) return check
  if (!(await spentInTransaction(trx, check))) throw new CredentialsChanged()
  return undefined
}

/**
 * Runs the steps of a signed write that may fail before its nonce is spent for good (a check, a
 * statement or transaction rolled back): when they fail, the nonce is spent by an insert of its
 * own, so that a replay of a failed request is refused rather than answered the same. When that
 * finds it spent before, the request is a replay (or its key changed): CredentialsChanged, and
 * authentication in full refuses it, whatever else failed. Other writes run as they are.
 */
export async function spendingOnFailure<T>(
  db: Executor,
  check: CredentialCheck | undefined,
  steps: () => Promise<T>,
): Promise<T> {
  if (!check || !isSignatureCheck(check)) return steps()
  try {
    return await steps()
  } catch (error) {
    if (error instanceof CredentialsChanged) throw error
    // Should the insert fail too (the database gone), the write's own failure is the answer.
    const spent = await spentInTransaction(db, check).catch(() => true)
    throw spent ? error : new CredentialsChanged()
  }
}

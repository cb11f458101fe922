// Before serving: API keys that cannot be verified are a configuration problem, told at start-up
// rather than as 401s to every client that signs.
import { openSecret } from './auth/api-key-secrets.ts'
import { type Config, keyBytes } from './config.ts'
import type { EventStore } from './store/event-store.ts'

export class StoredKeysProblem extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message)
  }
}

/** Throws when keys that are not revoked exist and KEY_ENCRYPTION_KEY is missing or does not open their secrets. */
export async function checkStoredKeys(
  store: Pick<EventStore, 'listApiKeys' | 'findApiKey'>,
  config: Pick<Config, 'keyEncryptionKey'>,
): Promise<void> {
  const active = (await store.listApiKeys()).filter((key) => key.revokedAt === undefined)
  if (active.length === 0) return
  const encryptionKey = config.keyEncryptionKey === undefined ? undefined : keyBytes(config.keyEncryptionKey)
  const hint =
    'set KEY_ENCRYPTION_KEY to the key that `ers keys add` used, or revoke the keys (ers keys list, ers keys revoke ID)'
  if (!encryptionKey) {
    throw new StoredKeysProblem(
      `${active.length} API key(s) exist, but KEY_ENCRYPTION_KEY, under which their secrets are stored, is not set`,
      hint,
    )
  }
  for (const { id } of active) {
    const key = await store.findApiKey(id)
    if (key && key.revokedAt === undefined && openSecret(key.sealedSecret, id, encryptionKey) === undefined) {
      throw new StoredKeysProblem(`KEY_ENCRYPTION_KEY does not open the secret of API key ${id}`, hint)
    }
  }
}

// `ers keys add|list|revoke`: API keys for signed requests (CONTRACT.md §4). A key is a principal
// of its own, with a name and a role; its secret is printed once and stored only sealed under
// KEY_ENCRYPTION_KEY (auth/api-key-secrets.ts), so without that setting no key can be added.
import { newKeyId, newKeySecret, sealSecret } from '../auth/api-key-secrets.ts'
import { type Config, keyBytes } from '../config.ts'
import type { Role } from '../domain/types.ts'
import type { KyselyStore } from '../store/kysely-store.ts'
import { CliError } from './errors.ts'

const out = (line: string) => {
  process.stdout.write(`${line}\n`)
}

const warn = (line: string) => {
  process.stderr.write(`ers: warning: ${line}\n`)
}

/** NAME: what the key is for, 1–100 characters, no control characters, not only spaces. */
export function keyNameProblem(name: string): string | undefined {
  const length = [...name].length
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (length < 1 || length > 100 || name.trim() === '' || /[\u0000-\u001f\u007f]/.test(name)) {
    return 'NAME must be 1–100 characters, not only spaces, without control characters'
  }
  return undefined
}

/** The key encryption key, or the reason no key can be added without it. */
export function encryptionKeyOf(config: Pick<Config, 'keyEncryptionKey'>): Buffer {
  const key = config.keyEncryptionKey === undefined ? undefined : keyBytes(config.keyEncryptionKey)
  if (!key) {
    throw new CliError(
      'KEY_ENCRYPTION_KEY is not set: API key secrets are stored encrypted under it. Make one with ' +
        '`openssl rand -base64 32`, keep it outside the database, and give the server the same one',
    )
  }
  return key
}

export async function addKey(
  store: KyselyStore,
  { name, role, json, encryptionKey }: { name: string; role: Role; json: boolean; encryptionKey: Buffer },
): Promise<void> {
  // Names need not be unique (a key is told apart by its id), but a second key of one name is
  // more often a command run twice, or a rotation whose old key is still live: say so, and add
  // it all the same (as `locations add` does for a twin).
  const twins = (await store.listApiKeys()).filter((key) => key.name === name)
  if (twins.length > 0) {
    const which = twins.map((key) => `${key.id}${key.revokedAt === undefined ? '' : ' (revoked)'}`)
    warn(`a key named "${name}" already exists: ${which.join(', ')}; adding another`)
  }
  const id = newKeyId()
  const secret = newKeySecret()
  const key = await store.createApiKey({
    id,
    name,
    role,
    sealedSecret: sealSecret(secret, id, encryptionKey),
    createdAt: Date.now(),
  })
  if (json) return out(JSON.stringify({ id: key.id, secret }))
  out(`key ${key.id} ("${key.name}", ${key.role}) created; its secret is shown only now:`)
  out(`id:     ${key.id}`)
  out(`secret: ${secret}`)
}

export async function listKeys(store: KyselyStore, { json }: { json: boolean }): Promise<void> {
  // Never a secret, sealed or not: only what an operator needs to recognise and revoke a key.
  const keys = (await store.listApiKeys()).map((key) => ({
    id: key.id,
    name: key.name,
    role: key.role,
    created_at: new Date(key.createdAt).toISOString(),
    revoked_at: key.revokedAt === undefined ? null : new Date(key.revokedAt).toISOString(),
  }))
  if (json) return out(JSON.stringify(keys))
  const rows = keys.map((k) => [
    k.id,
    k.role,
    k.created_at,
    k.revoked_at ? `revoked ${k.revoked_at}` : 'active',
    k.name,
  ])
  const widths = [0, 1, 2, 3].map((i) => Math.max(0, ...rows.map((row) => [...(row[i] ?? '')].length)))
  for (const row of rows) {
    out(row.map((cell, i) => (i < 4 ? cell.padEnd(widths[i] ?? 0) : cell)).join('  '))
  }
}

export async function revokeKey(store: KyselyStore, id: string): Promise<void> {
  if (!(await store.revokeApiKey(id, Date.now()))) throw new CliError(`there is no key "${id}"`)
  out(`key ${id} revoked: requests it signs are refused from now on`)
}

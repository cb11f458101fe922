// API key ids and secrets, and how a secret is kept at rest.
//
// HMAC (RFC 9421 §3.3.3) is verified by computing it again, which needs the secret itself: unlike
// a password, it cannot be stored as a one-way hash. So it is stored sealed: encrypted with
// AES-256-GCM under KEY_ENCRYPTION_KEY, a key kept outside the database (environment, secret
// manager). A copy of the database alone gives neither the secrets nor a way to sign. The key id is
// the associated data, so a sealed secret copied onto another key's row does not open there, and
// GCM's tag makes any change to a sealed value fail to open rather than yield another secret.
import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from 'node:crypto'

/** `k_` and 16 base64url characters (96 random bits): public, names the key in `keyid`. */
export const newKeyId = (): string => `k_${randomBytes(12).toString('base64url')}`

/**
 * 256 random bits as 43 base64url characters: the HMAC key is these characters' ASCII bytes.
 * Never one that begins with `-`: pasted after `--secret` (ers, curl, most command lines) it
 * would read as an option. Drawing again costs log2(64/63) ≈ 0.02 bits of the first character.
 */
export function newKeySecret(): string {
  for (;;) {
    const secret = randomBytes(32).toString('base64url')
    if (!secret.startsWith('-')) return secret
  }
}

/** A key id as this service makes them; anything else cannot name a key. */
export const keyIdSyntax = /^k_[A-Za-z0-9_-]{16}$/

const version = 'v1'
const ivBytes = 12 // NIST SP 800-38D §8.2: 96-bit random IVs
const tagBytes = 16

/** `v1.` then base64url of IV ‖ ciphertext ‖ tag. */
export function sealSecret(secret: string, keyId: string, encryptionKey: Buffer): string {
  const iv = randomBytes(ivBytes)
  const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv, { authTagLength: tagBytes })
  cipher.setAAD(Buffer.from(keyId, 'utf8'))
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return `${version}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`
}

/**
 * The secret, or undefined when `sealed` does not open under this key and key id. Give the key
 * as a KeyObject (crypto.createSecretKey), which Node 24 takes at once, where it spends ~15 µs
 * checking a Buffer before each use (measured).
 */
export function openSecret(
  sealed: string,
  keyId: string,
  encryptionKey: Buffer | KeyObject,
): string | undefined {
  return openedBytes(sealed, keyId, encryptionKey)?.toString('utf8')
}

/**
 * The HMAC key of a sealed secret (its ASCII bytes), or undefined when it does not open: what a
 * signed request is verified with. The secret never becomes a JavaScript string: its bytes are
 * copied into a KeyObject, whose key material is kept outside the JavaScript heap, and the opened
 * buffer is overwritten.
 */
export function openSigningKey(
  sealed: string,
  keyId: string,
  encryptionKey: Buffer | KeyObject,
): KeyObject | undefined {
  const bytes = openedBytes(sealed, keyId, encryptionKey)
  if (!bytes) return undefined
  const key = createSecretKey(bytes)
  bytes.fill(0)
  return key
}

function openedBytes(sealed: string, keyId: string, encryptionKey: Buffer | KeyObject): Buffer | undefined {
  if (!sealed.startsWith(`${version}.`)) return undefined
  const bytes = Buffer.from(sealed.slice(version.length + 1), 'base64url')
  if (bytes.length <= ivBytes + tagBytes) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', encryptionKey, bytes.subarray(0, ivBytes), {
      authTagLength: tagBytes,
    })
    decipher.setAAD(Buffer.from(keyId, 'utf8'))
    decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes))
    return Buffer.concat([
      decipher.update(bytes.subarray(ivBytes, bytes.length - tagBytes)),
      decipher.final(),
    ])
  } catch {
    return undefined // wrong key, wrong key id, or altered
  }
}

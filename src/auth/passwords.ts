// Passwords are stored as Argon2id PHC strings at the OWASP minimum (m=19 MiB, t=2, p=1): salted,
// memory-hard, never kept or logged in clear.
import { type Algorithm, hash, verify } from '@node-rs/argon2'

// Algorithm is a `const enum` in the package's types; its value is spelled here so that
// per-file transpilers (tsx/esbuild) need not inline it.
const argon2id = 2 as Algorithm.Argon2id

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 })
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password)
  } catch {
    // A stored value that is not a PHC string can never match.
    return false
  }
}

/** A hash of a random password, verified against when a user does not exist so timing is alike. */
let dummy: Promise<string> | undefined
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(crypto.randomUUID())
  return dummy
}

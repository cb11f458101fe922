// Passwords are stored as Argon2id PHC strings (`$argon2id$v=19$m=7168,t=5,p=1$<salt>$<hash>`):
// salted, memory-hard, never kept or logged in clear. Each string records the cost it was made
// with, so raising PASSWORD_HASH_MEMORY_KIB / PASSWORD_HASH_TIME_COST upgrades old hashes one
// successful login at a time (see needsRehash) without touching anyone's password.
import { type Algorithm, hash, verify } from '@node-rs/argon2'
import { defaultHashCost, type HashCost } from './hash-cost.ts'

// Algorithm is a `const enum` in the package's types; its value is spelled here so that
// per-file transpilers (tsx/esbuild) need not inline it.
const argon2id = 2 as Algorithm.Argon2id

export type { HashCost } from './hash-cost.ts'

export function hashPassword(password: string, cost: HashCost = defaultHashCost): Promise<string> {
  return hash(password, {
    algorithm: argon2id,
    memoryCost: cost.passwordHashMemoryKib,
    timeCost: cost.passwordHashTimeCost,
    parallelism: 1,
  })
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password)
  } catch {
    // A stored value that is not a PHC string can never match.
    return false
  }
}

const phcArgon2id = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/

/** The cost an Argon2id (v1.3) PHC string was made with; undefined for anything else. */
export function costOf(passwordHash: string): HashCost | undefined {
  const m = phcArgon2id.exec(passwordHash)
  if (!m) return undefined
  return { passwordHashMemoryKib: Number(m[1]), passwordHashTimeCost: Number(m[2]) }
}

/**
 * Whether a stored hash is weaker than `cost` asks for (less memory or fewer passes, or not
 * Argon2id v1.3 at all), so that it should be recomputed at the next successful login. A hash
 * stronger than configured is kept: lowering the setting never weakens stored hashes.
 */
export function needsRehash(passwordHash: string, cost: HashCost): boolean {
  const stored = costOf(passwordHash)
  return (
    stored === undefined ||
    stored.passwordHashMemoryKib < cost.passwordHashMemoryKib ||
    stored.passwordHashTimeCost < cost.passwordHashTimeCost
  )
}

/**
 * A hash of a random password at `cost`, verified against when a user does not exist so that the
 * work (and so the time) is the same as for a user who does. One per cost, made once.
 */
const dummies = new Map<string, Promise<string>>()
export function dummyHash(cost: HashCost = defaultHashCost): Promise<string> {
  const key = `${cost.passwordHashMemoryKib},${cost.passwordHashTimeCost}`
  let dummy = dummies.get(key)
  if (!dummy) {
    dummy = hashPassword(crypto.randomUUID(), cost)
    dummies.set(key, dummy)
  }
  return dummy
}

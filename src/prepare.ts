// What a server does to its database before it serves: migrate, fill a brand-new database with
// samples (once, however many instances start together), and make sure someone can log in.
import { randomBytes } from 'node:crypto'
import { hashPassword, verifyPassword } from './auth/passwords.ts'
import type { Config } from './config.ts'
import { sampleLocations } from './domain/samples.ts'
import type { KyselyStore } from './store/kysely-store.ts'

export interface PrepareReport {
  readonly migrations: string[]
  readonly seeded: boolean
  /** Set when this call created the first user with a generated password (shown once, never stored). */
  readonly generatedAdminPassword?: string
  readonly createdAdmin: boolean
  /** ADMIN_PASSWORD is set but `admin` already exists with another password, which was kept. */
  readonly adminPasswordIgnored: boolean
}

export async function prepareDatabase(
  store: KyselyStore,
  config: Pick<Config, 'seed' | 'adminPassword' | 'passwordHashMemoryKib' | 'passwordHashTimeCost'>,
): Promise<PrepareReport> {
  const migrations = await store.migrate()
  const seeded = await store.initialiseOnce(() => (config.seed ? sampleLocations() : []))
  const existing = await store.findUser('admin')
  let generatedAdminPassword: string | undefined
  let createdAdmin = false
  // Costs one hash at start-up, so that a password that silently does nothing is pointed out.
  const adminPasswordIgnored =
    existing !== undefined &&
    config.adminPassword !== undefined &&
    !(await verifyPassword(existing.passwordHash, config.adminPassword))
  if (!existing) {
    const password = config.adminPassword ?? randomBytes(18).toString('base64url')
    createdAdmin = await store.createFirstUser('admin', 'editor', await hashPassword(password, config))
    if (createdAdmin && config.adminPassword === undefined) generatedAdminPassword = password
  }
  return {
    migrations,
    seeded: seeded && config.seed,
    createdAdmin,
    adminPasswordIgnored,
    ...(generatedAdminPassword && { generatedAdminPassword }),
  }
}

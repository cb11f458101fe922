// The stores every contract test runs against. Each target makes a fresh, empty database and
// drops it afterwards, so tests never share state.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface StoreTarget {
  readonly name: string
  /** Makes a new empty database; returns its URL and how to remove it. */
  create(): Promise<{ databaseUrl: string; drop(): Promise<void> }>
}

const sqlite: StoreTarget = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'ers-test-'))
    return {
      databaseUrl: `sqlite:${join(dir, 'events.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    }
  },
}

export const storeTargets: readonly StoreTarget[] = [sqlite]

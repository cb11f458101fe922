// The `pg` driver, loaded when a PostgreSQL store first needs it: a service on SQLite never loads
// it (about 2 MB of heap with its protocol, pool and type parsers). It is CommonJS, so require()
// loads it synchronously, and openStore stays synchronous.
import { createRequire } from 'node:module'
import type pg from 'pg'

let loaded: typeof pg | undefined

export const pgDriver = (): typeof pg => {
  loaded ??= createRequire(import.meta.url)('pg') as typeof pg
  return loaded
}

// What a store step runs its statements on: the database itself, or the transaction it is part of.
// A module of its own so that the steps (writes, counts, the change log) need not import the store
// that calls them: imports in store/ run one way.
import type { Kysely, Transaction } from 'kysely'
import type { Database } from './schema.ts'

export type Executor = Kysely<Database> | Transaction<Database>

// Kysely's PostgreSQL connections, with every statement text named: `pg` then sends a text to
// PostgreSQL once per connection (Parse), and afterwards only binds values and executes it, so the
// server neither parses nor analyses it again and may keep its plan. Kysely's own driver sends each
// statement unnamed, parsed and planned anew every time: on PUT /events/<id> PostgreSQL spent
// ~450-540 µs of CPU per request; named, ~250 µs (the baseline's named UPDATE: ~130 µs).
//
// - The store's statement texts are few: shapes built by Kysely, values always as parameters. Only
//   IN lists and import batches vary in length, so names are bounded: past `maxNamed` texts a
//   statement runs unnamed, as before. PostgreSQL chooses per execution between a plan for the
//   values at hand and a generic one, taking the generic plan only where it costs no more.
// - A prepared statement whose result columns change under it (`select *` after a newer instance's
//   migration added a column) fails with "cached plan must not change result type". Its text is
//   then never named again by this process, and the statement is run once more unnamed unless it
//   was inside a transaction (which the failure has aborted: the transaction fails as a whole).
import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'

export const maxNamed = 500

const transactionControl = /^(begin|start transaction|commit|rollback|savepoint|release)\b/i

const resultTypeChanged = (error: unknown) =>
  (error as { code?: string }).code === '0A000' &&
  String((error as Error).message).includes('cached plan must not change result type')

export function namingPool(pool: pg.Pool, max = maxNamed): PostgresPool {
  const names = new Map<string, string>()
  const neverNamed = new Set<string>()
  const nameOf = (text: string): string | undefined => {
    if (transactionControl.test(text) || neverNamed.has(text)) return undefined
    let name = names.get(text)
    if (name === undefined && names.size < max) {
      name = `ers_${names.size + 1}`
      names.set(text, name)
    }
    return name
  }

  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let inTransaction = false
    const run = async (text: string, values: unknown[]) => {
      const name = nameOf(text)
      if (name === undefined) return client.query({ text, values })
      try {
        return await client.query({ name, text, values })
      } catch (error) {
        if (!resultTypeChanged(error)) throw error
        neverNamed.add(text)
        if (inTransaction) throw error
        return client.query({ text, values })
      }
    }
    // Kysely passes a cursor only when its dialect is given a cursor class, which this one is not.
    const query = async (text: string, values: readonly unknown[] = []) => {
      const control = transactionControl.exec(text)?.[1]?.toLowerCase()
      const result = await run(text, [...values])
      if (control === 'begin' || control === 'start transaction') inTransaction = true
      else if (control === 'commit' || control === 'rollback') inTransaction = false
      return result
    }
    return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() }
  }

  // One wrapper per connection: Kysely keeps its connection objects by client.
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  return {
    async connect() {
      const client = await pool.connect()
      let connection = wrapped.get(client)
      if (!connection) {
        connection = wrap(client)
        wrapped.set(client, connection)
      }
      return connection
    },
    end: () => pool.end(),
    // Kysely reads the pool's options only to cancel a query on abort (a connection of its own).
    options: pool.options,
  }
}

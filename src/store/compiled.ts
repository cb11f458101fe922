// Queries built and compiled once, run many times with new parameters. Kysely builds and compiles
// a query on every call (~8% of a GET by id's busy time, measured); the hot reads skip that.
import type { Compilable, CompiledQuery } from 'kysely'

/**
 * Compiles `query`, built with `placeholders` as its parameter values, and answers a function
 * that gives the same compiled query with other values in their place. The placeholders must be
 * distinct, and the compiled query must carry exactly them, in order: otherwise the SQL holds a
 * value inline or in another position, and reusing it would be wrong, so it throws at once.
 */
export function compileOnce<R, P extends readonly unknown[]>(
  query: Compilable<R>,
  placeholders: P,
): (...parameters: { [K in keyof P]: unknown }) => CompiledQuery<R> {
  const compiled = query.compile()
  const same =
    compiled.parameters.length === placeholders.length &&
    compiled.parameters.every((value, i) => value === placeholders[i])
  if (!same) {
    throw new Error(
      `compileOnce: expected parameters ${JSON.stringify(placeholders)}, compiled ` +
        `${JSON.stringify(compiled.parameters)} for ${compiled.sql}`,
    )
  }
  return (...parameters) => ({ ...compiled, parameters })
}

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

/** Stands for the `index`th value of a statement compiled by `shapedStatements`. */
class Slot {
  constructor(readonly index: number) {}
}

const maxShapes = 64

/** A slot typed as the value it stands for, for Kysely's builder (which only carries it along). */
export type Slotted = <T>(index: number) => T

/**
 * Statements whose form varies with their input (which columns a write sets, how many versions a
 * precondition names), each form built and compiled once per database and then filled with new
 * values. Kysely builds and compiles on every call, which was ~12% of a PUT's CPU on PostgreSQL.
 * `build` gets `slot(i)` in place of `values[i]` and must not look at it: whatever decides the
 * statement's form belongs in `shape`. Values the builder writes itself (`version + 1`) stay as
 * compiled.
 */
export function shapedStatements<R>() {
  const byDatabase = new WeakMap<object, Map<string, CompiledQuery<R>>>()
  const slot: Slotted = <T>(index: number) => new Slot(index) as unknown as T
  return (
    db: object,
    shape: string,
    values: readonly unknown[],
    build: (slot: Slotted) => Compilable<R>,
  ): CompiledQuery<R> => {
    let forms = byDatabase.get(db)
    if (!forms) {
      forms = new Map()
      byDatabase.set(db, forms)
    }
    let compiled = forms.get(shape)
    if (!compiled) {
      compiled = build(slot).compile()
      // Shapes a client can multiply (an If-Match naming ever more versions) stop being kept here.
      if (forms.size < maxShapes) forms.set(shape, compiled)
    }
    return {
      ...compiled,
      parameters: compiled.parameters.map((value) => (value instanceof Slot ? values[value.index] : value)),
    }
  }
}

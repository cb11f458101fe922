// Substring search on SQLite: an FTS5 table with the trigram tokenizer over the column, kept by
// triggers (made by the frozen migration 0006). Without it, `instr` has to read every row (1M events: 0.2–2 s, all of it blocking the
// event loop, since better-sqlite3 is synchronous); with it, a needle of 3 characters or more
// reads only the rows whose trigrams it holds. `case_sensitive 1`: the column is already folded,
// and the index must not fold it again (its folding is not JavaScript's).
import { type SqlBool, sql } from 'kysely'
import { substringIndexName } from '../flavour.ts'

/**
 * `instr` decides, exactly as without the index; the trigram index only narrows the rows it looks
 * at, for needles long enough to have a trigram (shorter ones scan).
 */
export function trigramContains(table: string, column: string, needle: string) {
  const exact = sql<SqlBool>`instr(${sql.ref(column)}, ${needle}) > 0`
  if ([...needle].length < 3) return exact
  // An FTS5 string: in double quotes, a double quote doubled. Trigram phrases match substrings.
  const phrase = `"${needle.replaceAll('"', '""')}"`
  const index = sql.table(substringIndexName(table, column))
  return sql<SqlBool>`${exact} and ${sql.ref(`${table}.id`)} in (select rowid from ${index} where ${index} match ${phrase})`
}

// Substring search on SQLite: an FTS5 table with the trigram tokenizer over the column, kept by
// triggers. Without it, `instr` has to read every row (1M events: 0.2–2 s, all of it blocking the
// event loop, since better-sqlite3 is synchronous); with it, a needle of 3 characters or more
// reads only the rows whose trigrams it holds. `case_sensitive 1`: the column is already folded,
// and the index must not fold it again (its folding is not JavaScript's).
import { type Kysely, type SqlBool, sql } from 'kysely'
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

/** The FTS5 table over `table`.`column` (rowid = `id`), filled once, then kept by triggers. */
export async function trigramIndex(db: Kysely<unknown>, table: string, column: string): Promise<void> {
  const name = substringIndexName(table, column)
  const index = sql.table(name)
  const t = sql.table(table)
  const c = sql.ref(column)
  // External content: it stores the trigrams, not a second copy of the text; columnsize=0: no
  // per-row sizes, which only ranking needs (10 MB at 1M events). detail=full stays: phrase
  // queries, and so substrings, need the positions.
  await sql`create virtual table ${index} using fts5(${c}, content=${sql.lit(table)}, content_rowid='id',
    columnsize=0, tokenize='trigram case_sensitive 1')`.execute(db)
  await sql`insert into ${index} (${index}) values ('rebuild')`.execute(db)
  const add = sql`insert into ${index} (rowid, ${c}) values (new.id, new.${c});`
  const remove = sql`insert into ${index} (${index}, rowid, ${c}) values ('delete', old.id, old.${c});`
  await sql`create trigger ${sql.id(`${name}_insert`)} after insert on ${t} begin ${add} end`.execute(db)
  await sql`create trigger ${sql.id(`${name}_delete`)} after delete on ${t} begin ${remove} end`.execute(db)
  await sql`create trigger ${sql.id(`${name}_update`)} after update of ${c} on ${t}
    begin ${remove} ${add} end`.execute(db)
}

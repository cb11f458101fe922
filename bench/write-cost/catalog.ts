// What a write's schema holds, read from the catalog rather than listed by hand: every index and
// trigger on the tables an event write touches, and the statements that take each one away.
// The tables the write statements name are given; the tables their triggers write are found in
// the triggers' text, so that a new trigger writing a new table is measured without an edit here.
import type Sqlite from 'better-sqlite3'
import type pg from 'pg'

export interface SchemaPart {
  readonly kind: 'index' | 'trigger' | 'foreign key'
  readonly name: string
  readonly table: string
  /** Its SQL as the catalog gives it, shortened to one line. */
  readonly definition: string
  /** The statements that take it away; or why it is not taken away alone. */
  readonly drop: readonly string[] | { readonly unavailable: string }
}

/**
 * The tables the write statements themselves name: the event (writes/versioned.ts,
 * writes/event-statements.ts), its logged change (change-log.ts), the writer's credentials
 * (`stillMayWrite`) and a create's location (writes/events.ts requireLocation, or the foreign key).
 */
export const statementTables = ['events', 'change_log', 'users', 'locations'] as const

const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 160)
const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`

/** The tables named in `text`, as whole words (`events` is not in `events_by_title_folded`). */
const namedIn = (text: string, tables: readonly string[]) =>
  tables.filter((table) => new RegExp(`(^|[^A-Za-z0-9_])"?${table}"?([^A-Za-z0-9_]|$)`).test(text))

/** The statement tables, and every table a trigger of a table already found writes, until none is new. */
function touchedTables(
  all: readonly string[],
  triggerText: (tables: readonly string[]) => string[],
): string[] {
  const found = new Set<string>(statementTables)
  for (let size = 0; size !== found.size; ) {
    size = found.size
    for (const text of triggerText([...found])) for (const table of namedIn(text, all)) found.add(table)
  }
  return [...found].sort()
}

export function sqliteParts(db: Sqlite.Database): { tables: string[]; parts: SchemaPart[] } {
  const all = (
    db.prepare(`select name from sqlite_master where type = 'table'`).all() as { name: string }[]
  ).map((r) => r.name)
  const triggersOn = (tables: readonly string[]) =>
    (
      db
        .prepare(
          `select sql from sqlite_master where type = 'trigger' and tbl_name in (select value from json_each(?))`,
        )
        .all(JSON.stringify(tables)) as { sql: string }[]
    ).map((r) => r.sql)
  const tables = touchedTables(all, triggersOn)
  const rows = db
    .prepare(
      `select type, name, tbl_name as "table", sql from sqlite_master
       where type in ('index', 'trigger') and tbl_name in (select value from json_each(?)) order by tbl_name, type, name`,
    )
    .all(JSON.stringify(tables)) as {
    type: 'index' | 'trigger'
    name: string
    table: string
    sql: string | null
  }[]
  const parts = rows.map((r): SchemaPart => {
    if (r.sql !== null)
      return {
        kind: r.type,
        name: r.name,
        table: r.table,
        definition: oneLine(r.sql),
        drop: [`drop ${r.type} ${quoted(r.name)}`],
      }
    // An index SQLite made for a constraint has no SQL and goes only with its table: the table is
    // made again without the constraint.
    const { origin, columns } = constraintOf(db, r.table, r.name)
    const keyword = origin === 'pk' ? 'PRIMARY KEY' : 'UNIQUE'
    const definition = `the index of the ${keyword} (${columns.join(', ')}) of ${r.table}`
    const drop = rebuiltWithout(db, r.table, origin, columns)
    return {
      kind: r.type,
      name: r.name,
      table: r.table,
      definition,
      drop: drop ?? {
        unavailable: `a constraint's own index that this probe cannot take out of ${r.table}'s SQL`,
      },
    }
  })
  return { tables, parts }
}

function constraintOf(db: Sqlite.Database, table: string, index: string) {
  const list = db.prepare(`select name, origin from pragma_index_list(?)`).all(table) as {
    name: string
    origin: string
  }[]
  const origin = list.find((i) => i.name === index)?.origin === 'pk' ? 'pk' : 'u'
  const columns = (
    db.prepare(`select name from pragma_index_info(?) order by seqno`).all(index) as { name: string }[]
  ).map((c) => c.name)
  return { origin, columns } as const
}

/**
 * The statements that make `table` again without its PRIMARY KEY or UNIQUE constraint on
 * `columns` (SQLite's way of altering a constraint: a new table, the rows copied, the old one
 * dropped and the new one renamed, its own indexes and triggers made again); undefined when the
 * constraint is not found in the table's SQL.
 */
function rebuiltWithout(db: Sqlite.Database, table: string, origin: 'pk' | 'u', columns: readonly string[]) {
  const { sql } = db
    .prepare(`select sql from sqlite_master where type = 'table' and name = ?`)
    .get(table) as { sql: string }
  const keyword = origin === 'pk' ? 'primary key' : 'unique'
  const listed = columns.map((c) => `"?${c}"?`).join('\\s*,\\s*')
  const tableLevel = new RegExp(
    `,\\s*(constraint\\s+"?\\w+"?\\s+)?${keyword}\\s*\\(\\s*${listed}\\s*\\)`,
    'i',
  )
  const columnLevel = new RegExp(`([(,]\\s*"?${columns[0]}"?\\s[^,]*?)\\s+${keyword}\\b`, 'i')
  const edited = tableLevel.test(sql)
    ? sql.replace(tableLevel, '')
    : columns.length === 1 && columnLevel.test(sql)
      ? sql.replace(columnLevel, '$1')
      : undefined
  if (edited === undefined) return undefined
  const rebuilt = `${table}__rebuilt`
  const own = (
    db
      .prepare(
        `select sql from sqlite_master where tbl_name = ? and type in ('index', 'trigger') and sql is not null`,
      )
      .all(table) as { sql: string }[]
  ).map((r) => r.sql)
  return [
    // The triggers of other tables that name this one are not checked while it is renamed.
    'pragma legacy_alter_table = on',
    'begin',
    edited.replace(/^create table\s+("[^"]+"|\S+)/i, `create table ${quoted(rebuilt)}`),
    `insert into ${quoted(rebuilt)} select * from ${quoted(table)}`,
    `drop table ${quoted(table)}`,
    `alter table ${quoted(rebuilt)} rename to ${quoted(table)}`,
    ...own,
    'commit',
  ]
}

export async function postgresParts(client: pg.Client): Promise<{ tables: string[]; parts: SchemaPart[] }> {
  const all = (
    await client.query<{ name: string }>(
      `select tablename as name from pg_tables where schemaname = 'public'`,
    )
  ).rows
  const triggers = async (tables: readonly string[]) =>
    (
      await client.query<TriggerRow>(
        `select tg.tgname as name, t.relname as "table", tg.tgisinternal as internal,
                pg_get_triggerdef(tg.oid) as definition, p.prosrc as source,
                con.conname as "constraint", ct.relname as "constraintTable",
                pg_get_constraintdef(con.oid) as "constraintDefinition"
         from pg_trigger tg
         join pg_class t on t.oid = tg.tgrelid
         join pg_proc p on p.oid = tg.tgfoid
         left join pg_constraint con on con.oid = tg.tgconstraint
         left join pg_class ct on ct.oid = con.conrelid
         where t.relname = any($1) and t.relnamespace = 'public'::regnamespace
         order by t.relname, tg.tgname`,
        [tables],
      )
    ).rows
  const names = all.map((r) => r.name)
  // A trigger function's text names the tables it writes.
  const tables: string[] = [...statementTables]
  let rows: TriggerRow[] = []
  for (let size = -1; size !== tables.length; ) {
    size = tables.length
    rows = await triggers(tables)
    for (const row of rows)
      for (const table of namedIn(row.source, names)) if (!tables.includes(table)) tables.push(table)
  }
  rows = await triggers(tables)
  tables.sort()
  const indexes = (
    await client.query<{ name: string; table: string; definition: string; constraint: string | null }>(
      `select i.indexrelid::regclass::text as name, t.relname as "table",
              pg_get_indexdef(i.indexrelid) as definition, con.conname as "constraint"
       from pg_index i
       join pg_class t on t.oid = i.indrelid
       left join pg_constraint con on con.conindid = i.indexrelid and con.conrelid = i.indrelid
         and con.contype in ('p', 'u', 'x')
       where t.relname = any($1) and t.relnamespace = 'public'::regnamespace
       order by t.relname, 1`,
      [tables],
    )
  ).rows
  const parts: SchemaPart[] = indexes.map((r) => ({
    kind: 'index',
    name: r.name,
    table: r.table,
    definition: oneLine(r.definition) + (r.constraint ? ` (constraint ${r.constraint})` : ''),
    drop: [
      r.constraint
        ? `alter table ${quoted(r.table)} drop constraint ${quoted(r.constraint)}`
        : `drop index ${quoted(r.name)}`,
    ],
  }))
  for (const row of rows.filter((r) => !r.internal)) {
    parts.push({
      kind: 'trigger',
      name: row.name,
      table: row.table,
      definition: oneLine(row.definition),
      drop: [`drop trigger ${quoted(row.name)} on ${quoted(row.table)}`],
    })
  }
  // A foreign key is kept by internal triggers on both of its tables: one part, dropped as a whole.
  const keys = new Map<string, TriggerRow[]>()
  for (const row of rows.filter((r) => r.internal && r.constraint)) {
    keys.set(row.constraint as string, [...(keys.get(row.constraint as string) ?? []), row])
  }
  for (const [name, held] of keys) {
    const first = held[0] as TriggerRow
    parts.push({
      kind: 'foreign key',
      name,
      table: first.constraintTable as string,
      definition: `${first.constraintDefinition} (${held.length} internal triggers: ${held.map((r) => `${r.table}.${r.source}`).join(', ')})`,
      drop: [`alter table ${quoted(first.constraintTable as string)} drop constraint ${quoted(name)}`],
    })
  }
  return { tables, parts }
}

interface TriggerRow {
  readonly name: string
  readonly table: string
  readonly internal: boolean
  readonly definition: string
  readonly source: string
  readonly constraint: string | null
  readonly constraintTable: string | null
  readonly constraintDefinition: string | null
}

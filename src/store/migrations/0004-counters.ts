// Released: frozen (frozen.ts). The collection's total in 16 shards of table `counters`.
import { type Kysely, sql } from 'kysely'
import type { Migration } from 'kysely/migration'
import { runStatements } from './frozen.ts'

export function counters(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await runStatements(db, [
        `create table "counters" ("name" text not null, "shard" integer not null, "value" bigint default 0 not null, constraint "counters_pk" primary key ("name", "shard"))`,
      ])
      // Every shard exists from the start (writes only update), and the count so far goes to
      // shard 0, counted inside the migration's own transaction (and lock) so none is missed.
      for (let shard = 0; shard < 16; shard++) {
        await sql`insert into counters (name, shard, value) values (${'events'}, ${shard}, 0)`.execute(db)
      }
      await sql`update counters set value = (select count(*) from events)
        where name = ${'events'} and shard = 0`.execute(db)
    },
  }
}

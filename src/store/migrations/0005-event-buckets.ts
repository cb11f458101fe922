// Released: frozen (frozen.ts). The number of events per date bucket (2^28 ms of starts_at),
// kept by triggers (event-buckets.ts says why); the buckets of the events already stored are
// counted inside the migration's transaction.
import type { Kysely } from 'kysely'
import type { Migration } from 'kysely/migration'
import { runStatements, type SchemaDialect } from './frozen.ts'

const table = [
  `create table "event_buckets" ("bucket" bigint not null, "shard" integer not null, "count" bigint not null, constraint "event_buckets_pk" primary key ("bucket", "shard"))`,
  `insert into event_buckets (bucket, shard, count)
    select starts_at >> 28, 0, count(*) from events
    group by starts_at >> 28`,
]

// SQLite serialises writers: one row per bucket, kept row by row.
const sqliteTriggers = [
  `create trigger events_bucket_insert after insert on events begin
     insert into event_buckets (bucket, shard, count) values (new.starts_at >> 28, 0, 1)
       on conflict (bucket, shard) do update set count = count + 1;
   end`,
  `create trigger events_bucket_delete after delete on events begin
     update event_buckets set count = count - 1 where bucket = old.starts_at >> 28 and shard = 0;
   end`,
  `create trigger events_bucket_move after update of starts_at on events
     when old.starts_at >> 28 <> new.starts_at >> 28 begin
     update event_buckets set count = count - 1 where bucket = old.starts_at >> 28 and shard = 0;
     insert into event_buckets (bucket, shard, count) values (new.starts_at >> 28, 0, 1)
       on conflict (bucket, shard) do update set count = count + 1;
   end`,
]

// PostgreSQL: statement triggers over transition tables (one upsert per statement), a bucket's
// count spread over 4 shards picked at random, buckets locked in ascending order.
const postgresTriggers = [
  `create function events_bucket_count() returns trigger language plpgsql as $$
   declare
     many boolean;
   begin
     if tg_op = 'INSERT' then
       many := exists (select from new_rows offset 1);
       
  insert into event_buckets (bucket, shard, count)
    select new_rows.starts_at >> 28, case when many then 0 else floor(random() * 4)::integer end, 1 * count(*) from new_rows
    group by new_rows.starts_at >> 28 order by new_rows.starts_at >> 28
  on conflict (bucket, shard) do update set count = event_buckets.count + excluded.count;
     else
       many := false;
       
  insert into event_buckets (bucket, shard, count)
    select old_rows.starts_at >> 28, case when many then 0 else floor(random() * 4)::integer end, -1 * count(*) from old_rows
    group by old_rows.starts_at >> 28 order by old_rows.starts_at >> 28
  on conflict (bucket, shard) do update set count = event_buckets.count + excluded.count;
     end if;
     return null;
   end $$`,
  `create function events_bucket_move() returns trigger language plpgsql as $$
   declare
     moved_up boolean := old.starts_at >> 28 < new.starts_at >> 28;
   begin
     insert into event_buckets (bucket, shard, count) values
       (least(old.starts_at >> 28, new.starts_at >> 28), floor(random() * 4)::integer, case when moved_up then -1 else 1 end),
       (greatest(old.starts_at >> 28, new.starts_at >> 28), floor(random() * 4)::integer, case when moved_up then 1 else -1 end)
     on conflict (bucket, shard) do update set count = event_buckets.count + excluded.count;
     return null;
   end $$`,
  `create trigger events_bucket_insert after insert on events referencing new table as new_rows
     for each statement execute function events_bucket_count()`,
  `create trigger events_bucket_delete after delete on events referencing old table as old_rows
     for each statement execute function events_bucket_count()`,
  `create trigger events_bucket_move after update of starts_at on events for each row
     when (old.starts_at >> 28 <> new.starts_at >> 28) execute function events_bucket_move()`,
]

export function eventBuckets(dialect: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await runStatements(db, [...table, ...(dialect === 'sqlite' ? sqliteTriggers : postgresTriggers)])
    },
  }
}

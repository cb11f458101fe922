// Frozen once released (frozen.ts). One source for counts: the triggers that keep the date
// buckets (0005) keep the collection's total in `counters` too, in the same statement, so that no
// application code writes a count and the lock order lives in one place: the total's shard first,
// then the buckets in ascending order (docs/architecture.md, "Counting events"). The total is
// then recounted once from the rows, in the migration's transaction.
import type { Kysely } from 'kysely'
import type { Migration } from 'kysely/migration'
import { runStatements, type SchemaDialect } from './frozen.ts'

// SQLite serialises writers: shard 0 only, row by row, beside the bucket's own row.
const sqliteTriggers = [
  `drop trigger events_bucket_insert`,
  `drop trigger events_bucket_delete`,
  `create trigger events_bucket_insert after insert on events begin
     update counters set value = value + 1 where name = 'events' and shard = 0;
     insert into event_buckets (bucket, shard, count) values (new.starts_at >> 28, 0, 1)
       on conflict (bucket, shard) do update set count = count + 1;
   end`,
  `create trigger events_bucket_delete after delete on events begin
     update counters set value = value - 1 where name = 'events' and shard = 0;
     update event_buckets set count = count - 1 where bucket = old.starts_at >> 28 and shard = 0;
   end`,
]

// PostgreSQL: the statement trigger adds the statement's rows to one of the 16 shards of the
// total (at random, so that concurrent writes rarely wait on one row; shard 0 for a statement of
// many rows), then to the buckets in ascending order. A statement that wrote no row (a delete
// whose precondition failed) locks nothing. A transaction that set `ers.deferred_counts` (an
// import: store/import-counts.ts) counts nothing here and adds its counts once, at its end, in
// the same order.
const postgresTriggers = [
  `create or replace function events_bucket_count() returns trigger language plpgsql as $$
   declare
     n bigint;
     picked integer;
   begin
     if current_setting('ers.deferred_counts', true) = 'on' then
       return null;
     end if;
     if tg_op = 'INSERT' then
       select count(*) into n from new_rows;
     else
       select -count(*) into n from old_rows;
     end if;
     if n = 0 then
       return null;
     end if;
     picked := case when n > 1 then 0 else floor(random() * 16)::integer end;
     update counters set value = value + n where name = 'events' and shard = picked;
     picked := case when n > 1 then 0 else floor(random() * 4)::integer end;
     if tg_op = 'INSERT' then
       insert into event_buckets (bucket, shard, count)
         select new_rows.starts_at >> 28, picked, count(*) from new_rows
         group by new_rows.starts_at >> 28 order by new_rows.starts_at >> 28
       on conflict (bucket, shard) do update set count = event_buckets.count + excluded.count;
     else
       insert into event_buckets (bucket, shard, count)
         select old_rows.starts_at >> 28, picked, -count(*) from old_rows
         group by old_rows.starts_at >> 28 order by old_rows.starts_at >> 28
       on conflict (bucket, shard) do update set count = event_buckets.count + excluded.count;
     end if;
     return null;
   end $$`,
]

const recountTotal = `update counters set value = case when shard = 0 then (select count(*) from events) else 0 end
  where name = 'events'`

export function countsInTriggers(dialect: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await runStatements(db, [...(dialect === 'sqlite' ? sqliteTriggers : postgresTriggers), recountTotal])
    },
  }
}

// Versioned migrations, as a static list (no file-system scanning, so bundling and tests agree).
// Each released migration is frozen (frozen.ts): it holds the SQL it runs, per dialect where the
// SQL differs, and imports nothing from the live code; lock.json records a hash of each.
import type { MigrationProvider } from 'kysely/migration'
import { initial } from './0001-initial.ts'
import { idempotencyKeys } from './0002-idempotency-keys.ts'
import { apiKeys } from './0003-api-keys.ts'
import { counters } from './0004-counters.ts'
import { eventBuckets } from './0005-event-buckets.ts'
import { eventFilters } from './0006-event-filters.ts'
import { changeLog } from './0007-change-log.ts'
import { changeNumbering } from './0008-change-numbering.ts'
import { countsInTriggers } from './0009-counts-in-triggers.ts'
import { titleIndexWhenChanged } from './0010-title-index-when-changed.ts'
import type { SchemaFlavour } from './schema-flavour.ts'

export function migrations({ schema }: SchemaFlavour): MigrationProvider {
  return {
    async getMigrations() {
      return {
        '0001_initial': initial(schema),
        '0002_idempotency_keys': idempotencyKeys(schema),
        '0003_api_keys': apiKeys(),
        '0004_counters': counters(),
        '0005_event_buckets': eventBuckets(schema),
        '0006_event_filters': eventFilters(schema),
        '0007_change_log': changeLog(schema),
        '0008_change_numbering': changeNumbering(schema),
        '0009_counts_in_triggers': countsInTriggers(schema),
        '0010_title_index_when_changed': titleIndexWhenChanged(schema),
      }
    },
  }
}

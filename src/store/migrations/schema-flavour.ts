// What the migrations need to know of a dialect, apart from index.ts so that a migration in a file
// of its own (0006) takes it without importing the list that imports it.
import type { SqlFlavour } from '../flavour.ts'

export type SchemaFlavour = Pick<
  SqlFlavour,
  'idType' | 'identity' | 'maxParameters' | 'substringIndex' | 'eventBucketTriggers' | 'changeNumbering'
>

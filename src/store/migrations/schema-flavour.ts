// What the migrations need to know of a dialect: which frozen text to run. Apart from index.ts so
// that each migration takes it without importing the list that imports it.
import type { SchemaDialect } from './frozen.ts'

export interface SchemaFlavour {
  readonly schema: SchemaDialect
}

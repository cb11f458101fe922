// The format `ers import` reads, as a TypeBox schema: one definition gives the validator the CLI
// uses, the static type, and the JSON Schema published as docs/import.schema.json.
import { type Static, Type } from 'typebox'
import { DateTime, LocationAddress, LocationName, Title } from './schemas.ts'

export const ImportEvent = Type.Object(
  { title: Title, date: DateTime },
  { additionalProperties: false, description: 'an event at the enclosing location' },
)

export const ImportLocation = Type.Object(
  {
    name: LocationName,
    address: LocationAddress,
    events: Type.Optional(Type.Array(ImportEvent, { description: 'may be empty or left out' })),
  },
  { additionalProperties: false },
)

export const ImportFile = Type.Object(
  {
    // Lets an editor find this schema for a file that names it.
    $schema: Type.Optional(Type.String({ description: 'the URI of this schema; ignored by ers import' })),
    locations: Type.Array(ImportLocation),
  },
  { additionalProperties: false },
)
export type ImportFile = Static<typeof ImportFile>

/** Where the published schema lives in the repository, and the command that writes it. */
export const importSchemaPath = 'docs/import.schema.json'
export const importSchemaCommand = 'npm run schema'

/** The JSON Schema document (draft 2020-12) published at `importSchemaPath`. */
export function importSchemaDocument(): Record<string, unknown> {
  // JSON round trip: only the enumerable JSON Schema keywords, in a stable order.
  const schema = JSON.parse(JSON.stringify(ImportFile)) as Record<string, unknown>
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:event-resource-service:import-file',
    title: 'ers import file',
    description:
      'Locations with their events, as read by `ers import FILE`. Every entry is checked with the ' +
      'rules of the HTTP API and the whole file is loaded in one transaction, or nothing is. Dates ' +
      'are RFC 3339 date-times with a Z or an offset, years 0100–9999, at most to the millisecond; no text may contain U+0000. ' +
      `Generated from src/contract/import-file.ts by \`${importSchemaCommand}\`.`,
    ...schema,
  }
}

/** The text of the published file: two-space indentation and a final newline. */
export function importSchemaText(): string {
  return `${JSON.stringify(importSchemaDocument(), null, 2)}\n`
}

// The representation types the client package ships (packages/client/src/contract/
// representations.ts), written out from the TypeBox schemas here, so that the client needs no
// TypeBox (6.4 MB installed, more than the whole client) and its users' type checks need no
// TypeBox either. `npm run schema` writes the file; a unit test fails when it and the schemas
// disagree, and another checks each written type against `Static<>` of its schema.
import * as schemas from './schemas.ts'

/** Where the written types live in the repository. */
export const clientTypesPath = 'packages/client/src/contract/representations.ts'

/** The exported name of each type and the schema it is written from, in the file's order. */
export const clientTypes = {
  Link: schemas.Link,
  EntryPointRepresentation: schemas.EntryPoint,
  EventRepresentation: schemas.Event,
  EventCollectionRepresentation: schemas.EventCollection,
  LocationRepresentation: schemas.Location,
  LocationCollectionRepresentation: schemas.LocationCollection,
  Problem: schemas.Problem,
  EventCreate: schemas.EventCreate,
  EventReplace: schemas.EventReplace,
  EventPatch: schemas.EventPatch,
  LocationCreate: schemas.LocationCreate,
  LocationReplace: schemas.LocationReplace,
  LocationPatch: schemas.LocationPatch,
  PagingBody: schemas.PagingBody,
  EventsQueryBody: schemas.EventsQueryBody,
} as const

interface Schema {
  readonly type?: string
  readonly description?: string
  readonly properties?: Readonly<Record<string, Schema>>
  readonly required?: readonly string[]
  readonly items?: Schema
  readonly anyOf?: readonly Schema[]
  readonly const?: unknown
}

/** The TypeScript type of the JSON Schema constructs the contract uses (as `Static<>` reads them). */
export function typeOf(schema: Schema, indent = '', named = new Map<object, string>()): string {
  const name = named.get(schema)
  if (name) return name
  const inner = `${indent}  `
  const of = (s: Schema, at = indent) => typeOf(s, at, named)
  if (schema.anyOf) return schema.anyOf.map((s) => of(s)).join(' | ')
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  switch (schema.type) {
    case 'string':
      return 'string'
    case 'integer':
    case 'number':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'array': {
      const item = schema.items ? of(schema.items) : 'unknown'
      return /^\w+$/.test(item) ? `${item}[]` : `Array<${item}>`
    }
    case 'object': {
      const lines = Object.entries(schema.properties ?? {}).flatMap(([name, property]) => {
        const optional = schema.required?.includes(name) ? '' : '?'
        const doc = property.description ? [`${inner}/** ${property.description} */`] : []
        return [...doc, `${inner}${name}${optional}: ${of(property, inner)}`]
      })
      return `{\n${lines.join('\n')}\n${indent}}`
    }
    default:
      return 'unknown'
  }
}

/** The text of the written file. */
export function clientTypesText(): string {
  // A schema written earlier is referred to by its name (a Link in an event, an event in a page).
  const named = new Map<object, string>()
  const types = Object.entries(clientTypes).map(([name, schema]) => {
    const doc = (schema as Schema).description ? `/** ${(schema as Schema).description} */\n` : ''
    const text = `${doc}export type ${name} = ${typeOf(schema as Schema, '', named)}\n`
    named.set(schema, name)
    return text
  })
  return `// Written by \`npm run schema\` from the TypeBox schemas of src/contract/schemas.ts (the
// server's): do not edit. The wire representations and request bodies (CONTRACT.md §2, §3).

${types.join('\n')}`
}

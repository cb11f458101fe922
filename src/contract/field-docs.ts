// The fields of a schema in words, for the relation documentation (GET /rel/...): walked from the
// same TypeBox schemas that validate requests and serialize responses, so the two cannot drift.
// Pure; knows JSON Schema keywords, nothing of HTTP.
import { dateTimePattern } from '../domain/dates.ts'

import { visibleText } from './schemas.ts'

export interface FieldDoc {
  readonly name: string
  /** `string`, `integer`, `array of objects`… */
  readonly type: string
  /** Always present in a representation; must be sent in a request body. */
  readonly required: boolean
  /** Set by the service, never changed by a request (JSON Schema `readOnly`). */
  readonly read_only?: true
  /** What a valid value is: `1–200 characters`, `RFC 3339 date-time`, `≥ 1`… */
  readonly rules: readonly string[]
  readonly description?: string
}

/** The JSON Schema keywords read here (a TypeBox schema is a JSON Schema). */
interface Schema {
  readonly type?: string
  readonly properties?: Readonly<Record<string, Schema>>
  readonly required?: readonly string[]
  readonly items?: Schema
  readonly minLength?: number
  readonly maxLength?: number
  readonly minimum?: number
  readonly maximum?: number
  readonly minItems?: number
  readonly maxItems?: number
  readonly pattern?: string
  readonly format?: string
  readonly description?: string
  readonly readOnly?: boolean
}

// int32/int64 add nothing a reader needs beside the bounds, which are listed.
const formats: Record<string, string> = { 'date-time': 'RFC 3339 date-time', int32: '', int64: '' }
const patterns: Record<string, string> = {
  // Invisible (format) characters count as whitespace here: see visibleText.
  [visibleText]: 'not only whitespace',
  [dateTimePattern]: 'a real date and time in years 0100–9999, no leap second, at most milliseconds',
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

function range(min: number | undefined, max: number | undefined, unit: string): string[] {
  if (min !== undefined && max !== undefined) return [`${min}–${plural(max, unit)}`]
  if (min !== undefined && min > 0) return [`at least ${plural(min, unit)}`]
  if (max !== undefined) return [`at most ${plural(max, unit)}`]
  return []
}

export function typeName(schema: Schema): string {
  if (schema.type === 'array') return schema.items ? `array of ${typeName(schema.items)}s` : 'array'
  return schema.type ?? 'any JSON value'
}

export function rulesOf(schema: Schema): string[] {
  return [
    ...(schema.format && formats[schema.format] !== ''
      ? [formats[schema.format] ?? `format ${schema.format}`]
      : []),
    ...range(schema.minLength, schema.maxLength, 'character'),
    ...(schema.pattern ? [patterns[schema.pattern] ?? `matches /${schema.pattern}/`] : []),
    ...(schema.minimum !== undefined ? [`≥ ${schema.minimum}`] : []),
    ...(schema.maximum !== undefined ? [`≤ ${schema.maximum}`] : []),
    ...range(schema.minItems, schema.maxItems, 'item'),
  ]
}

/** The properties of an object schema, in their order; none for anything else. */
export function describeFields(schema: unknown): FieldDoc[] {
  const object = (schema ?? {}) as Schema
  const required = new Set(object.required ?? [])
  return Object.entries(object.properties ?? {}).map(([name, field]) => {
    const rules = rulesOf(field)
    // A description that only restates the rules says nothing more.
    const description =
      field.description !== undefined && field.description !== rules.join(', ')
        ? field.description
        : undefined
    return {
      name,
      type: typeName(field),
      required: required.has(name),
      ...(field.readOnly === true && { read_only: true as const }),
      rules,
      ...(description !== undefined && { description }),
    }
  })
}

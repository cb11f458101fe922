// `ers import FILE`: reads {"locations": [{"name", "address", "events": [{"title", "date"}]}]},
// checks it against the import format (src/contract/import-file.ts, published as
// docs/import.schema.json), then loads it all in one transaction. Every problem is listed with a
// JSON Pointer, and nothing is written while there is one.
import { readFile } from 'node:fs/promises'
import { Compile, type Validator } from 'typebox/compile'
import type { TLocalizedValidationError } from 'typebox/error'
import { Format } from 'typebox/format'
import { Settings } from 'typebox/system'
import { ImportFile } from '../contract/import-file.ts'
import { visibleText } from '../contract/schemas.ts'
import { dateProblemText, parseDateTime } from '../domain/dates.ts'
import type { ImportLocation } from '../store/event-store.ts'
import { CliError, exitFailure, firstLine } from './errors.ts'

const maxReported = 20

/** The file's content breaks the import format: exit 2, with every problem listed. */
export class ImportError extends CliError {}

export async function readImportFile(path: string): Promise<{ locations: ImportLocation[]; events: number }> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    // Not the file's content but its absence: a failure to run, not a usage error.
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such file' : firstLine(error)
    throw new CliError(`cannot read ${path}: ${reason}`, exitFailure)
  }
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (error) {
    throw new ImportError(`${path}: not JSON: ${(error as Error).message}`)
  }
  const checked = checkImport(document)
  if ('problems' in checked) {
    throw new ImportError(`${path}: nothing imported:\n  ${checked.problems.join('\n  ')}`)
  }
  return checked
}

/**
 * Checks a parsed import document and converts it for the store, or lists what is wrong with it
 * as `pointer: detail` lines (at most 20, then a line saying more were left out).
 */
export function checkImport(
  document: unknown,
): { locations: ImportLocation[]; events: number } | { problems: string[] } {
  const list = (document as { locations?: unknown } | null)?.locations
  if (typeof document !== 'object' || Array.isArray(document) || !Array.isArray(list)) {
    return { problems: ['expected an object with a "locations" array'] }
  }
  const problems = new Map<string, string>()
  const importValidator = validator()
  if (!importValidator.Check(document)) {
    for (const error of errorsOf(importValidator, document)) {
      for (const [pointer, detail] of describe(error, document)) {
        if (!problems.has(pointer)) problems.set(pointer, detail)
      }
    }
  }
  // The schema cannot say it: PostgreSQL's text cannot hold U+0000, so no store accepts it.
  for (const [pointer, value] of texts(list)) {
    if (problems.size > maxReported) break
    if (value.includes('\u0000') && !problems.has(pointer)) problems.set(pointer, nulDetail)
  }
  if (problems.size > 0) return { problems: report(problems) }

  const valid = document as ImportFile
  let events = 0
  const locations = valid.locations.map((location) => {
    const converted = (location.events ?? []).map((event) => {
      const date = parseDateTime(event.date)
      // The schema's date-time format is this same parser, so a checked date always parses.
      if (!date.ok) throw new Error(`unchecked date ${JSON.stringify(event.date)}`)
      return { title: event.title, date: date.value }
    })
    events += converted.length
    return { name: location.name, address: location.address, events: converted }
  })
  return { locations, events }
}

const nulDetail = 'contains the character U+0000, which cannot be stored'

/** What is wrong with a location's name and address by the import format's rules, as `--field detail`. */
export function locationProblems(location: { name: string; address: string }): string[] {
  const checked = checkImport({ locations: [{ ...location, events: [] }] })
  return 'problems' in checked ? checked.problems.map((p) => p.replace(/^\/locations\/0\//, '--')) : []
}

let compiled: Validator | undefined

/** The import format's validator, compiled once (TypeBox generates a checking function). */
function validator(): Validator {
  if (!compiled) {
    // TypeBox's format registry is process-wide and read when a validator is compiled: date-time
    // is set to the service's own RFC 3339 parser, the same rule app.ts gives the HTTP API's Ajv.
    Format.Set('date-time', (text) => parseDateTime(text).ok)
    compiled = Compile(ImportFile)
  }
  return compiled
}

/** Enough errors to fill the report; TypeBox stops collecting at its process-wide `maxErrors`. */
function errorsOf(checker: Validator, document: unknown): TLocalizedValidationError[] {
  const saved = Settings.Get().maxErrors
  Settings.Set({ maxErrors: maxReported * 4 })
  try {
    return checker.Errors(document)
  } finally {
    Settings.Set({ maxErrors: saved })
  }
}

/** One TypeBox error as `[pointer, detail]` pairs, worded as the rule of the field it concerns. */
function describe(error: TLocalizedValidationError, document: unknown): [string, string][] {
  switch (error.keyword) {
    case 'required':
      return error.params.requiredProperties.map((name) => [child(error.instancePath, name), 'is required'])
    case 'additionalProperties':
      return error.params.additionalProperties.map((name) => [
        child(error.instancePath, name),
        'is not a field of the import format (see docs/import.schema.json)',
      ])
    case 'boolean':
      // `additionalProperties: false` reports each extra field twice; the case above words it.
      return []
  }
  const schema = schemaAt(error.schemaPath)
  const value = valueAt(document, error.instancePath)
  if (schema?.format === 'date-time') {
    const parsed = typeof value === 'string' ? parseDateTime(value) : undefined
    return [[error.instancePath, dateProblemText[parsed && !parsed.ok ? parsed.problem : 'format']]]
  }
  if (schema?.type === 'string' && typeof schema.maxLength === 'number') {
    const blank = schema.pattern === visibleText ? ', not only whitespace' : ''
    return [
      [
        error.instancePath,
        `must be a string of ${schema.minLength ?? 0}–${schema.maxLength} characters${blank}`,
      ],
    ]
  }
  if (error.keyword === 'type') {
    const type = String(error.params.type)
    return [[error.instancePath, `must be ${type === 'array' || type === 'object' ? 'an' : 'a'} ${type}`]]
  }
  return [[error.instancePath, error.message]]
}

/** The sub-schema of the import format that `#/properties/…` names. */
function schemaAt(schemaPath: string): Record<string, unknown> | undefined {
  let node: unknown = ImportFile
  for (const segment of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    node = (node as Record<string, unknown> | undefined)?.[unescapeToken(segment)]
  }
  return node as Record<string, unknown> | undefined
}

function valueAt(document: unknown, pointer: string): unknown {
  let node = document
  for (const segment of pointer.split('/').slice(1)) {
    node = (node as Record<string, unknown> | undefined)?.[unescapeToken(segment)]
  }
  return node
}

/** Every name, address and title that is a string, with its pointer. */
function* texts(list: unknown[]): Generator<[string, string]> {
  for (const [l, location] of list.entries()) {
    if (typeof location !== 'object' || location === null) continue
    const { name, address, events } = location as Record<string, unknown>
    if (typeof name === 'string') yield [`/locations/${l}/name`, name]
    if (typeof address === 'string') yield [`/locations/${l}/address`, address]
    if (!Array.isArray(events)) continue
    for (const [e, event] of events.entries()) {
      const title = (event as Record<string, unknown> | null)?.title
      if (typeof title === 'string') yield [`/locations/${l}/events/${e}/title`, title]
    }
  }
}

/** The problems ordered by pointer (array indexes by value), at most `maxReported` of them. */
function report(problems: Map<string, string>): string[] {
  const lines = [...problems]
    .sort(([a], [b]) => comparePointers(a, b))
    .map(([pointer, detail]) => `${pointer || '/'}: ${detail}`)
  return lines.length > maxReported
    ? [...lines.slice(0, maxReported), '… (further problems not shown)']
    : lines
}

function comparePointers(a: string, b: string): number {
  const as = a.split('/')
  const bs = b.split('/')
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const x = as[i] as string
    const y = bs[i] as string
    if (x === y) continue
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y)
    return numeric ? Number(x) - Number(y) : x < y ? -1 : 1
  }
  return as.length - bs.length
}

// RFC 6901: `~` is written `~0` and `/` is written `~1` inside a reference token.
const child = (pointer: string, name: string) =>
  `${pointer}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`
const unescapeToken = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~')

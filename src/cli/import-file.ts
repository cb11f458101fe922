// `ers import FILE`: reads {"locations": [{"name", "address", "events": [{"title", "date"}]}]},
// checks every entry with the same rules as the HTTP API, then loads it all in one transaction.
import { readFile } from 'node:fs/promises'
import { dateProblemText, parseDateTime } from '../domain/dates.ts'
import type { ImportLocation } from '../store/event-store.ts'

const maxReported = 20
const textRule = 'must be a string of 1–200 characters, not only whitespace, without U+0000'

export class ImportError extends Error {}

export async function readImportFile(path: string): Promise<{ locations: ImportLocation[]; events: number }> {
  let document: unknown
  try {
    document = JSON.parse(await readFile(path, 'utf8'))
  } catch (error) {
    throw new ImportError(`${path}: ${(error as Error).message}`)
  }
  const problems: string[] = []
  const problem = (pointer: string, detail: string) => {
    if (problems.length < maxReported) problems.push(`${pointer}: ${detail}`)
    else if (problems.length === maxReported) problems.push('… (further problems not shown)')
  }
  const list = (document as { locations?: unknown })?.locations
  if (!Array.isArray(list)) throw new ImportError(`${path}: expected an object with a "locations" array`)

  const locations: ImportLocation[] = []
  let events = 0
  list.forEach((entry: unknown, l: number) => {
    const at = `/locations/${l}`
    const location = (entry ?? {}) as Record<string, unknown>
    const name = text(location.name)
    const address = text(location.address)
    if (name === undefined) problem(`${at}/name`, textRule)
    if (address === undefined) problem(`${at}/address`, textRule)
    const rawEvents = location.events ?? []
    if (!Array.isArray(rawEvents)) {
      problem(`${at}/events`, 'must be an array')
      return
    }
    const parsed = rawEvents.map((raw: unknown, e: number) => {
      const event = (raw ?? {}) as Record<string, unknown>
      const title = text(event.title)
      if (title === undefined) problem(`${at}/events/${e}/title`, textRule)
      const date = typeof event.date === 'string' ? parseDateTime(event.date) : undefined
      if (!date?.ok) problem(`${at}/events/${e}/date`, dateProblemText[date?.problem ?? 'format'])
      return { title: title ?? '', date: date?.ok ? date.value : 0 }
    })
    events += parsed.length
    locations.push({ name: name ?? '', address: address ?? '', events: parsed })
  })
  if (problems.length > 0) throw new ImportError(`${path}: nothing imported:\n  ${problems.join('\n  ')}`)
  return { locations, events }
}

function text(value: unknown): string | undefined {
  // U+0000 cannot be stored in PostgreSQL text; the HTTP API refuses it on every store too.
  if (
    typeof value !== 'string' ||
    [...value].length > 200 ||
    value.trim() === '' ||
    value.includes('\u0000')
  ) {
    return undefined
  }
  return value
}

// How the client commands print: JSON as the service sent it by default (one document per line),
// or a table for people with --table.
import { relations } from '../contract/media-types.ts'
import type { EventRepresentation, LocationRepresentation } from '../contract/representations.ts'

export const printLine = (line: string) => {
  process.stdout.write(`${line}\n`)
}

export const printJson = (value: unknown) => printLine(JSON.stringify(value))

/** Columns padded to their widest cell (counted in code points), two spaces apart; the last is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows]
  const widths = header.map((_, i) => Math.max(...all.map((row) => [...(row[i] ?? '')].length)))
  return all
    .map((row) =>
      row
        .map((cell, i) =>
          i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - [...cell].length),
        )
        .join('  '),
    )
    .join('\n')
}

/** The location id an event's location link points at, as text ('' if it has none). */
const locationOf = (event: EventRepresentation) =>
  /\/locations\/(\d+)$/.exec(
    event.links.find((l) => l.rel.split(' ').includes(relations.location))?.uri ?? '',
  )?.[1] ?? ''

export const eventTable = (events: readonly EventRepresentation[]) =>
  table(
    ['ID', 'DATE', 'LOCATION', 'TITLE'],
    events.map((e) => [String(e.id), e.date, locationOf(e), e.title]),
  )

export const locationTable = (locations: readonly LocationRepresentation[]) =>
  table(
    ['ID', 'NAME', 'ADDRESS'],
    locations.map((l) => [String(l.id), l.name, l.address]),
  )

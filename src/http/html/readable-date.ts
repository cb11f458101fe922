// Dates as a person reads them on a page: "Fri 4 Dec 2026, 19:30 UTC" (seconds and milliseconds
// only when they are not zero), always in UTC, the zone the service stores and answers in. The
// instant itself goes into <time datetime>, as the JSON writes it. forms-script.ts writes the same
// text after an edit (its readable(); the browser test compares the two).
import { formatDateTime } from '../../domain/dates.ts'
import { html } from './escape.ts'

export const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const
export const months = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
] as const

const two = (n: number) => String(n).padStart(2, '0')

export function readableDateTime(epochMillis: number): string {
  const d = new Date(epochMillis)
  const seconds = d.getUTCSeconds()
  const millis = d.getUTCMilliseconds()
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}${
    seconds || millis ? `:${two(seconds)}${millis ? `.${String(millis).padStart(3, '0')}` : ''}` : ''
  }`
  return `${weekdays[d.getUTCDay()]} ${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${time} UTC`
}

/** `<time datetime="2026-12-04T19:30:00Z">Fri 4 Dec 2026, 19:30 UTC</time>`; `field` marks it for the script. */
export function timeElement(epochMillis: number, field?: string) {
  return html`<time${field && html` data-field="${field}"`} datetime="${formatDateTime(epochMillis)}">${readableDateTime(epochMillis)}</time>`
}

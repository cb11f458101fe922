// RFC 3339 date-times in, `YYYY-MM-DDTHH:MM:SS[.sss]Z` out (CONTRACT.md §2).

// RFC 3339 §5.6: full-date "T" full-time; "T" and "Z" may be lower case (§5.6 note). Leap
// seconds (60) are not representable in JavaScript time and are rejected.
const rfc3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/

export type DateProblem = 'format' | 'impossible' | 'precision' | 'range'

/** Parses an RFC 3339 date-time to epoch milliseconds, or names what is wrong with it. */
export function parseDateTime(
  text: string,
): { ok: true; value: number } | { ok: false; problem: DateProblem } {
  const m = rfc3339.exec(text)
  if (!m) return { ok: false, problem: 'format' }
  const [, y, mo, d, h, mi, s, fraction = '', , sign, oh, om] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  const offsetHours = Number(oh ?? 0)
  const offsetMinutes = Number(om ?? 0)
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    offsetHours > 23 ||
    offsetMinutes > 59
  ) {
    return { ok: false, problem: 'impossible' }
  }
  // Milliseconds are what is stored and returned; finer digits would be silently lost.
  if (/[1-9]/.test(fraction.slice(3))) return { ok: false, problem: 'precision' }
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0'))
  const offset = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes)
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  const local = new Date(0)
  local.setUTCFullYear(year, month - 1, day)
  local.setUTCHours(hour, minute, second, millis)
  const value = local.getTime() - offset * 60_000
  // The range is judged in UTC: four-digit years that JavaScript can format back.
  if (value < minTime || value > maxTime) return { ok: false, problem: 'range' }
  return { ok: true, value }
}

const minTime = new Date(0).setUTCFullYear(100, 0, 1)
const maxTime = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() + (month === 2 && !isLeap(year) ? -1 : 0)
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

/** UTC with a trailing Z; milliseconds only when they are not zero. */
export function formatDateTime(epochMillis: number): string {
  const iso = new Date(epochMillis).toISOString()
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso
}

export const dateProblemText: Record<DateProblem, string> = {
  format: 'must be an RFC 3339 date-time such as 2026-12-04T19:30:00Z',
  impossible: 'is not a real calendar date and time',
  precision: 'may carry at most millisecond precision',
  range: 'must fall between the years 0100 and 9999 in UTC',
}

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import {
  type DateProblem,
  dateProblemText,
  dateTimePattern,
  formatDateTime,
  parseDateTime,
} from '../../src/domain/dates.ts'

const minTime = Date.UTC(100, 0, 1)
const maxTime = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

function parsed(text: string): number {
  const result = parseDateTime(text)
  assert.ok(result.ok, `expected ${JSON.stringify(text)} to parse, got ${JSON.stringify(result)}`)
  return result.value
}

function rejected(text: string, problem: DateProblem): void {
  assert.deepEqual(
    parseDateTime(text),
    { ok: false, problem },
    `expected ${JSON.stringify(text)} → ${problem}`,
  )
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** Writes an instant as local time at the given offset (minutes east of UTC), e.g. `+05:30`. */
function atOffset(epochMillis: number, offsetMinutes: number): string {
  const local = new Date(epochMillis + offsetMinutes * 60_000)
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  const ms = local.getUTCMilliseconds()
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    `${ms === 0 ? '' : `.${pad(ms, 3)}`}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  )
}

describe('parseDateTime', () => {
  describe('accepts RFC 3339 date-times', () => {
    it('reads a UTC time with Z', () => {
      assert.equal(parsed('2026-12-04T19:30:00Z'), Date.UTC(2026, 11, 4, 19, 30, 0))
    })

    it('accepts lower-case t and z (RFC 3339 §5.6 note)', () => {
      assert.equal(parsed('2026-12-04t19:30:00z'), Date.UTC(2026, 11, 4, 19, 30, 0))
      assert.equal(parsed('2026-12-04t19:30:00Z'), Date.UTC(2026, 11, 4, 19, 30, 0))
      assert.equal(parsed('2026-12-04T19:30:00z'), Date.UTC(2026, 11, 4, 19, 30, 0))
    })

    it('normalises a positive offset to UTC', () => {
      assert.equal(parsed('2026-12-04T21:30:00+02:00'), Date.UTC(2026, 11, 4, 19, 30, 0))
      assert.equal(parsed('2026-12-05T01:00:00+05:30'), Date.UTC(2026, 11, 4, 19, 30, 0))
    })

    it('normalises a negative offset to UTC, across a day and year boundary', () => {
      assert.equal(parsed('2026-12-04T14:30:00-05:00'), Date.UTC(2026, 11, 4, 19, 30, 0))
      assert.equal(parsed('2026-12-31T23:30:00-01:45'), Date.UTC(2027, 0, 1, 1, 15, 0))
    })

    it('treats +00:00 and -00:00 as UTC', () => {
      const utc = Date.UTC(2026, 11, 4, 19, 30, 0)
      assert.equal(parsed('2026-12-04T19:30:00+00:00'), utc)
      assert.equal(parsed('2026-12-04T19:30:00-00:00'), utc)
    })

    it('accepts the extreme offsets ±23:59', () => {
      assert.equal(parsed('2026-06-15T23:59:00+23:59'), Date.UTC(2026, 5, 15, 0, 0, 0))
      assert.equal(parsed('2026-06-15T00:00:00-23:59'), Date.UTC(2026, 5, 15, 23, 59, 0))
    })

    it('reads fractions of one to three digits as milliseconds', () => {
      const base = Date.UTC(2026, 11, 4, 19, 30, 0)
      assert.equal(parsed('2026-12-04T19:30:00.5Z'), base + 500)
      assert.equal(parsed('2026-12-04T19:30:00.05Z'), base + 50)
      assert.equal(parsed('2026-12-04T19:30:00.123Z'), base + 123)
      assert.equal(parsed('2026-12-04T19:30:00.001Z'), base + 1)
      assert.equal(parsed('2026-12-04T19:30:00.000Z'), base)
    })

    it('accepts finer fractions when the extra digits are zeros', () => {
      const base = Date.UTC(2026, 11, 4, 19, 30, 0)
      assert.equal(parsed('2026-12-04T19:30:00.123000Z'), base + 123)
      assert.equal(parsed('2026-12-04T19:30:00.100000000Z'), base + 100)
      assert.equal(parsed('2026-12-04T19:30:00.0000Z'), base)
    })

    it('applies the offset to a time with a fraction', () => {
      assert.equal(parsed('2026-12-04T20:30:00.250+01:00'), Date.UTC(2026, 11, 4, 19, 30, 0, 250))
    })
  })

  describe('leap years', () => {
    it('accepts 29 February in a leap year (2024)', () => {
      assert.equal(parsed('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29))
    })

    it('accepts 29 February 2000 (divisible by 400)', () => {
      assert.equal(parsed('2000-02-29T12:00:00Z'), Date.UTC(2000, 1, 29, 12))
    })

    it('rejects 29 February in a common year (2026)', () => {
      rejected('2026-02-29T00:00:00Z', 'impossible')
    })

    it('rejects 29 February 1900 (divisible by 100, not 400)', () => {
      rejected('1900-02-29T00:00:00Z', 'impossible')
    })

    it('rejects 30 February in any year', () => {
      rejected('2026-02-30T00:00:00Z', 'impossible')
      rejected('2024-02-30T00:00:00Z', 'impossible')
    })
  })

  describe('rejects impossible dates and times', () => {
    const cases: [string, string][] = [
      ['month 00', '2026-00-10T00:00:00Z'],
      ['month 13', '2026-13-10T00:00:00Z'],
      ['day 00', '2026-01-00T00:00:00Z'],
      ['31 April', '2026-04-31T00:00:00Z'],
      ['31 June', '2026-06-31T00:00:00Z'],
      ['32 January', '2026-01-32T00:00:00Z'],
      ['hour 24', '2026-12-04T24:00:00Z'],
      ['minute 60', '2026-12-04T19:60:00Z'],
      ['second 60 (leap second)', '2026-12-31T23:59:60Z'],
      ['offset hour 24', '2026-12-04T19:30:00+24:00'],
      ['offset minute 60', '2026-12-04T19:30:00+01:60'],
    ]
    for (const [name, text] of cases) {
      it(`rejects ${name}: ${text}`, () => rejected(text, 'impossible'))
    }

    it('accepts the last day of every month of a common and a leap year', () => {
      const lastDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
      for (const [year, february] of [
        [2026, 28],
        [2024, 29],
      ] as const) {
        for (let month = 1; month <= 12; month++) {
          const last = month === 2 ? february : (lastDays[month - 1] as number)
          const text = `${year}-${pad(month)}-${pad(last)}T00:00:00Z`
          assert.equal(parsed(text), Date.UTC(year, month - 1, last), text)
          rejected(`${year}-${pad(month)}-${pad(last + 1)}T00:00:00Z`, 'impossible')
        }
      }
    })
  })

  describe('precision', () => {
    it('rejects sub-millisecond precision', () => {
      rejected('2026-12-04T19:30:00.1234Z', 'precision')
      rejected('2026-12-04T19:30:00.0001Z', 'precision')
      rejected('2026-12-04T19:30:00.123000001Z', 'precision')
      rejected('2026-12-04T19:30:00.000000001+02:00', 'precision')
    })
  })

  describe('malformed text', () => {
    const cases = [
      '',
      '2026-12-04',
      '19:30:00Z',
      '2026-12-04T19:30:00',
      '2026-12-04T19:30Z',
      '2026-12-04T19:30:00+0200',
      '2026-12-04T19:30:00+02',
      '2026-12-04T19:30:00.Z',
      '2026-12-4T19:30:00Z',
      '26-12-04T19:30:00Z',
      '+02026-12-04T19:30:00Z',
      ' 2026-12-04T19:30:00Z',
      '2026-12-04T19:30:00Z ',
      '2026-12-04T19:30:00ZZ',
      '2026/12/04T19:30:00Z',
      '2026-12-04X19:30:00Z',
      '２０２６-12-04T19:30:00Z',
      'Fri, 04 Dec 2026 19:30:00 GMT',
      '1796839800000',
    ]
    for (const text of cases) {
      it(`rejects ${JSON.stringify(text)} as a format problem`, () => rejected(text, 'format'))
    }

    it("names a space where the offset's '+' belongs (an unencoded '+' in a query string)", () => {
      rejected('2026-12-01T00:00:00 01:00', 'plus-as-space')
      rejected('2026-12-01T00:00:00.250 05:30', 'plus-as-space')
      // Not an offset with its '+' lost: these stay format problems.
      rejected('2026-12-01T00:00:00 0100', 'format')
      rejected('2026-12-01 00:00:00 01:00', 'format')
      rejected('2026-12-01T00:00:00  01:00', 'format')
    })
  })

  describe('range', () => {
    it('accepts the first and last representable instants', () => {
      assert.equal(parsed('0100-01-01T00:00:00Z'), minTime)
      assert.equal(parsed('9999-12-31T23:59:59.999Z'), maxTime)
    })

    it('rejects years before 0100', () => {
      rejected('0099-12-31T23:59:59Z', 'range')
      rejected('0000-01-01T00:00:00Z', 'range')
      rejected('0050-06-15T12:00:00Z', 'range')
    })

    it('rejects an instant after 9999-12-31T23:59:59.999Z reached through an offset', () => {
      rejected('9999-12-31T23:59:59-00:01', 'range')
    })

    it('rejects an instant before 0100-01-01T00:00:00Z reached through an offset', () => {
      rejected('0100-01-01T00:30:00+01:00', 'range')
    })

    it('accepts an instant inside the UTC range written with a local year of 0099', () => {
      // 0099-12-31T23:00:00-01:00 is 0100-01-01T00:00:00Z: in range, as dateProblemText.range says
      // the range is judged "in UTC".
      assert.equal(parsed('0099-12-31T23:00:00-01:00'), minTime)
    })
  })

  describe('properties', () => {
    const instant = fc.integer({ min: minTime, max: maxTime })
    const offsetMinutes = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 })

    it('round-trips every instant in range through formatDateTime', () => {
      fc.assert(
        fc.property(instant, (t) => {
          assert.deepEqual(parseDateTime(formatDateTime(t)), { ok: true, value: t })
        }),
        { numRuns: 1000 },
      )
    })

    it('parses every offset form of an instant to the same value', () => {
      // Instants whose local time stays within four-digit years at any offset.
      const inner = fc.integer({ min: minTime + 86_400_000, max: maxTime - 86_400_000 })
      fc.assert(
        fc.property(inner, offsetMinutes, (t, offset) => {
          assert.deepEqual(parseDateTime(atOffset(t, offset)), { ok: true, value: t })
        }),
        { numRuns: 1000 },
      )
    })

    it('parses every offset form of the boundary instants whose local year has four digits', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(minTime, maxTime),
          offsetMinutes.filter((m) => m !== 0),
          (t, offset) => {
            const local = new Date(t + offset * 60_000).getUTCFullYear()
            fc.pre(local >= 0 && local <= 9999)
            assert.deepEqual(parseDateTime(atOffset(t, offset)), { ok: true, value: t })
          },
        ),
      )
    })

    it('never accepts anything but a value in range, and always names a known problem', () => {
      fc.assert(
        fc.property(fc.string(), (text) => {
          const result = parseDateTime(text)
          if (result.ok) {
            assert.ok(result.value >= minTime && result.value <= maxTime)
          } else {
            assert.ok(result.problem in dateProblemText)
          }
        }),
      )
    })

    it('rejects every day past the end of its month', () => {
      fc.assert(
        fc.property(fc.integer({ min: 100, max: 9999 }), fc.integer({ min: 1, max: 12 }), (year, month) => {
          const days = new Date(Date.UTC(2000, month, 0)).getUTCDate()
          const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
          const last = month === 2 && !leap ? 28 : days
          const head = `${pad(year, 4)}-${pad(month)}`
          assert.ok(parseDateTime(`${head}-${pad(last)}T00:00:00Z`).ok)
          assert.deepEqual(parseDateTime(`${head}-${pad(last + 1)}T00:00:00Z`), {
            ok: false,
            problem: 'impossible',
          })
        }),
      )
    })
  })
})

describe('formatDateTime', () => {
  it('writes UTC with a trailing Z and no fraction when milliseconds are zero', () => {
    assert.equal(formatDateTime(Date.UTC(2026, 11, 4, 19, 30, 0)), '2026-12-04T19:30:00Z')
  })

  it('writes .sss when milliseconds are not zero', () => {
    assert.equal(formatDateTime(Date.UTC(2026, 11, 4, 19, 30, 0, 5)), '2026-12-04T19:30:00.005Z')
    assert.equal(formatDateTime(Date.UTC(2026, 11, 4, 19, 30, 0, 500)), '2026-12-04T19:30:00.500Z')
    assert.equal(formatDateTime(Date.UTC(2026, 11, 4, 19, 30, 0, 123)), '2026-12-04T19:30:00.123Z')
  })

  it('writes the range boundaries with four-digit years', () => {
    assert.equal(formatDateTime(minTime), '0100-01-01T00:00:00Z')
    assert.equal(formatDateTime(maxTime), '9999-12-31T23:59:59.999Z')
  })

  it('writes exactly what toISOString() writes, .000 left out, at any instant', () => {
    const reference = (t: number) => {
      const iso = new Date(t).toISOString()
      return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso
    }
    const edges = [minTime, minTime - 1, maxTime, maxTime + 1, 0, -1, 1, 951_782_400_000, 4_107_542_400_000]
    for (const t of edges) assert.equal(formatDateTime(t), reference(t), String(t))
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (t) => {
        assert.equal(formatDateTime(t), reference(t))
      }),
      { numRuns: 20_000 },
    )
    fc.assert(
      fc.property(fc.integer({ min: minTime, max: maxTime }), (t) => {
        assert.equal(formatDateTime(t), reference(t))
      }),
      { numRuns: 20_000 },
    )
  })

  it('always matches YYYY-MM-DDTHH:MM:SS[.sss]Z with .000 never written', () => {
    fc.assert(
      fc.property(fc.integer({ min: minTime, max: maxTime }), (t) => {
        const text = formatDateTime(t)
        assert.match(text, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/)
        assert.equal(text.includes('.'), t % 1000 !== 0)
        assert.ok(!text.endsWith('.000Z'))
      }),
      { numRuns: 1000 },
    )
  })
})

// The schemas' `pattern` (contract/schemas.ts DateTime, and so the OpenAPI document) against the
// service's own rule: it refuses what parseDateTime refuses and accepts what it accepts, but for
// instants an offset moves out of the UTC range, which parseDateTime alone refuses ('range').
describe('dateTimePattern', () => {
  const pattern = new RegExp(dateTimePattern)
  const table: [string, boolean, string][] = [
    ['2026-12-04T19:30:00Z', true, 'plain UTC'],
    ['2026-12-04t19:30:00z', true, 'lower-case t and z'],
    ['2026-12-04T19:30:00.123+05:30', true, 'milliseconds and an offset'],
    ['2026-12-04T19:30:00.1230000Z', true, 'further digits that are zeros'],
    ['2024-02-29T00:00:00Z', true, 'a leap day'],
    ['2000-02-29T00:00:00Z', true, 'a leap day of a year divisible by 400'],
    ['0100-01-01T00:00:00Z', true, 'the first instant'],
    ['9999-12-31T23:59:59.999Z', true, 'the last instant'],
    ['0099-12-31T23:00:00-01:00', true, '0100-01-01T00:00:00Z written with a local year 0099'],
    ['2026-12-31T23:59:60Z', false, 'a leap second'],
    ['2026-12-04T19:30:00.1234Z', false, 'a fourth significant fractional digit'],
    ['0000-01-01T00:00:00Z', false, 'year 0000'],
    ['0099-12-31T23:59:59Z', false, 'year 0099 in UTC'],
    ['2023-02-29T00:00:00Z', false, 'a leap day of a common year'],
    ['1900-02-29T00:00:00Z', false, 'a leap day of a century not divisible by 400'],
    ['2026-04-31T00:00:00Z', false, 'April 31'],
    ['2026-13-01T00:00:00Z', false, 'month 13'],
    ['2026-12-04T24:00:00Z', false, 'hour 24'],
    ['2026-12-04T19:30:00+24:00', false, 'an offset of 24 hours'],
    ['2026-12-04T19:30:00+0530', false, 'an offset without a colon'],
    ['2026-12-04 19:30:00Z', false, 'a space for T'],
    ['2026-12-04T19:30:00', false, 'no offset'],
    ['2026-12-04', false, 'a date alone'],
    ['+2026-12-04T19:30:00Z', false, 'an expanded year'],
  ]
  for (const [text, accepted, story] of table) {
    it(`${accepted ? 'accepts' : 'refuses'} ${story}: ${text}`, () => {
      assert.equal(parseDateTime(text).ok, accepted, 'the service')
      assert.equal(pattern.test(text), accepted, 'the pattern')
    })
  }

  it('refuses, as the service does, nothing but instants an offset moves out of range', () => {
    for (const text of ['0100-01-01T00:30:00+01:00', '9999-12-31T23:59:59-00:01']) {
      assert.ok(pattern.test(text), text)
      assert.deepEqual(parseDateTime(text), { ok: false, problem: 'range' })
    }
  })

  it('agrees with parseDateTime on generated near-misses', () => {
    const two = (min: number, max: number) => fc.integer({ min, max }).map((n) => pad(n))
    const text = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }).map((n) => pad(n, 4)),
        two(0, 13),
        two(0, 32),
        fc.constantFrom('T', 't', ' '),
        two(0, 25),
        two(0, 60),
        two(0, 61),
        fc.oneof(fc.constant(''), fc.stringMatching(/^\.[0-9]{1,7}$/)),
        fc.oneof(
          fc.constantFrom('Z', 'z', ''),
          fc
            .tuple(fc.constantFrom('+', '-'), two(0, 25), two(0, 60))
            .map(([sign, h, m]) => `${sign}${h}:${m}`),
        ),
      )
      .map(
        ([y, mo, d, t, h, mi, sec, fraction, offset]) =>
          `${y}-${mo}-${d}${t}${h}:${mi}:${sec}${fraction}${offset}`,
      )
    let accepted = 0
    fc.assert(
      fc.property(text, (candidate) => {
        const result = parseDateTime(candidate)
        const matches = pattern.test(candidate)
        if (result.ok) accepted++
        if (result.ok) assert.ok(matches, `the service takes ${candidate}, the pattern refuses it`)
        else if (matches) assert.equal(result.problem, 'range', `the pattern takes ${candidate}`)
      }),
      { numRuns: 20_000 },
    )
    assert.ok(accepted > 1000, `only ${accepted} generated date-times were valid`)
  })
})

// Preconditions on every method (RFC 9110 §13), as a matrix: each method of each resource, with
// every combination of If-Match and If-None-Match, on a resource that exists and on one that does
// not. The expected answer comes from the RFC's rules, written out below, not from the service's
// code; for writes the test reads the resource back to see that it changed exactly when the
// answer was 2xx.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { contractService, type Json, jsonHeaders, types } from '../support/contract.ts'
import type { RequestOptions, Response } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

// ─── The rules ──────────────────────────────────────────────────────────────────────────────────

/** A tag the test sends: the resource's current ETag or an older one, in strong or weak form. */
interface SentTag {
  readonly weak: boolean
  readonly which: 'current' | 'stale'
}

/** An If-Match or If-None-Match field as the test writes it; `absent` sends no field. */
type Field = 'absent' | '*' | 'malformed' | readonly SentTag[]

const strong = (which: SentTag['which']): SentTag => ({ weak: false, which })
const weak = (which: SentTag['which']): SentTag => ({ weak: true, which })

/**
 * RFC 9110 §13.1.1: If-Match is true when it is `*` and the resource has a current
 * representation, or when a listed tag matches the current ETag by the strong comparison
 * (§8.8.3.2: neither tag is weak and the opaque tags are the same). Every ETag the service sends
 * is strong. A malformed field names no tag (the service's documented reading), so it is false.
 */
function ifMatchIsTrue(field: Exclude<Field, 'absent'>, exists: boolean): boolean {
  if (!exists) return false
  if (field === '*') return true
  if (field === 'malformed') return false
  return field.some((t) => !t.weak && t.which === 'current')
}

/**
 * RFC 9110 §13.1.2: If-None-Match is false when it is `*` and the resource has a current
 * representation, or when a listed tag matches the current ETag by the weak comparison (the same
 * opaque tag, weak or not). A malformed field names no tag, so it is true.
 */
function ifNoneMatchIsTrue(field: Exclude<Field, 'absent'>, exists: boolean): boolean {
  if (!exists) return true
  if (field === '*') return false
  if (field === 'malformed') return true
  return !field.some((t) => t.which === 'current')
}

/**
 * RFC 9110 §13.2.1: preconditions are ignored when the answer without them would not be 2xx or
 * 412 — a missing resource stays 404. Otherwise §13.2.2, in order: (1) If-Match false → 412;
 * (2) If-Unmodified-Since does not apply (no Last-Modified); (3) If-None-Match false → 304 for
 * GET and HEAD (and QUERY, draft-ietf-httpbis-safe-method-w-body §2.3), 412 for other methods;
 * otherwise the method's own success.
 */
function expectedStatus(method: string, exists: boolean, ifMatch: Field, ifNoneMatch: Field): number {
  if (!exists) return 404
  if (ifMatch !== 'absent' && !ifMatchIsTrue(ifMatch, exists)) return 412
  if (ifNoneMatch !== 'absent' && !ifNoneMatchIsTrue(ifNoneMatch, exists)) {
    return ['GET', 'HEAD', 'QUERY'].includes(method) ? 304 : 412
  }
  return success[method] as number
}

const success: Record<string, number> = {
  GET: 200,
  HEAD: 200,
  QUERY: 200,
  POST: 201,
  PUT: 200,
  PATCH: 200,
  DELETE: 204,
}

// ─── The fields sent ────────────────────────────────────────────────────────────────────────────

const ifMatchFields: readonly [string, Field][] = [
  ['no If-Match', 'absent'],
  ['If-Match: the current tag', [strong('current')]],
  ['If-Match: a stale tag', [strong('stale')]],
  ['If-Match: *', '*'],
  ['If-Match: the current tag, weak', [weak('current')]],
  ['If-Match: a list holding the current tag', [strong('stale'), strong('current')]],
  ['If-Match: a malformed field', 'malformed'],
]

const ifNoneMatchFields: readonly [string, Field][] = [
  ['no If-None-Match', 'absent'],
  ['If-None-Match: the current tag', [strong('current')]],
  ['If-None-Match: a stale tag', [strong('stale')]],
  ['If-None-Match: *', '*'],
  ['If-None-Match: the current tag, weak', [weak('current')]],
  ['If-None-Match: a list holding the current tag', [weak('stale'), strong('current')]],
  ['If-None-Match: a malformed field', 'malformed'],
]

interface Combination {
  readonly name: string
  readonly ifMatch: Field
  readonly ifNoneMatch: Field
}

/** Every If-Match case with every If-None-Match case: each alone, and both together. */
const combinations: readonly Combination[] = ifMatchFields.flatMap(([imName, ifMatch]) =>
  ifNoneMatchFields.map(([inmName, ifNoneMatch]) => ({
    name: `${imName}, ${inmName}`,
    ifMatch,
    ifNoneMatch,
  })),
)

/** The tags of a resource the fields are written with. */
interface Tags {
  readonly current: string
  readonly stale: string
}

function render(field: Field, tags: Tags): string | undefined {
  if (field === 'absent') return undefined
  if (field === '*') return '*'
  // The current tag without its quotes: an entity-tag must be quoted (RFC 9110 §8.8.3).
  if (field === 'malformed') return tags.current.slice(1, -1)
  return field.map((t) => `${t.weak ? 'W/' : ''}${tags[t.which]}`).join(', ')
}

function conditionalHeaders(combination: Combination, tags: Tags): Record<string, string> {
  const ifMatch = render(combination.ifMatch, tags)
  const ifNoneMatch = render(combination.ifNoneMatch, tags)
  return {
    ...(ifMatch !== undefined && { 'if-match': ifMatch }),
    ...(ifNoneMatch !== undefined && { 'if-none-match': ifNoneMatch }),
  }
}

/** A tag the resource never had, made from its current one. */
const neverIssued = (current: string) => `"${current.slice(1, -1)}-old"`

// ─── The matrix ─────────────────────────────────────────────────────────────────────────────────

for (const target of storeTargets) {
  describe(`[${target.name}] preconditions on every method (RFC 9110 §13.2.2)`, () => {
    const ctx = contractService(target)

    /** An event whose ETag has moved once, so that it has a stale tag as well as a current one. */
    const changedEvent = async (): Promise<{ event: Json; tags: Tags }> => {
      const created = await ctx.createEvent({ title: 'Before' })
      const { etag: stale } = await ctx.readEvent(created.id)
      const patched = await ctx.http('PATCH', `/events/${created.id}`, {
        headers: jsonHeaders(ctx.service.editorAuth, types.mergePatch),
        body: { title: 'Current' },
      })
      assert.equal(patched.status, 200, patched.text)
      const { event, etag: current } = await ctx.readEvent(created.id)
      assert.ok(stale && current && stale !== current)
      return { event, tags: { current, stale } }
    }

    /** An id that names no event: one that existed and was deleted (ids are never reused). */
    const deletedEvent = async (): Promise<{ id: number; tags: Tags }> => {
      const { event, tags } = await changedEvent()
      const res = await ctx.http('DELETE', `/events/${event.id}`, {
        headers: { authorization: ctx.service.editorAuth },
      })
      assert.equal(res.status, 204, res.text)
      return { id: event.id, tags }
    }

    /**
     * Sends every combination and compares each status with the RFC's; `send` also reports what
     * else is wrong with an answer. All mismatches are listed at once. Combinations go out several
     * at a time, unless one's answer changes what the next expects (`sequential`).
     */
    const runMatrix = async (
      send: (combination: Combination) => Promise<{ res: Response; expected: number; problems: string[] }>,
      sequential = false,
    ) => {
      // A few at a time rather than all 49: enough to be quick, few enough not to crowd the store.
      const outcomes: Awaited<ReturnType<typeof send>>[] = []
      let next = 0
      const worker = async () => {
        for (let i = next++; i < combinations.length; i = next++) {
          outcomes[i] = await send(combinations[i] as Combination)
        }
      }
      await Promise.all(Array.from({ length: sequential ? 1 : 6 }, worker))
      const mismatches = outcomes.flatMap(({ res, expected, problems }, i) => {
        const name = combinations[i]?.name
        return [
          ...(res.status === expected
            ? []
            : [`${name}: expected ${expected}, got ${res.status} ${res.text.slice(0, 100)}`]),
          ...problems.map((problem) => `${name}: ${problem}`),
        ]
      })
      assert.deepEqual(mismatches, [], `${mismatches.length} of ${combinations.length} combinations`)
    }

    /** What a read's answer must carry beyond its status. */
    const readProblems = (res: Response, method: string, tags: Tags): string[] => {
      const problems: string[] = []
      if (res.status === 200 || res.status === 304) {
        // RFC 9110 §15.4.5: a 304 carries the ETag a 200 would have carried.
        if (res.header('etag') !== tags.current)
          problems.push(`ETag ${res.header('etag')}, not ${tags.current}`)
      }
      if (res.status === 304 && res.text !== '') problems.push('a 304 has no body')
      if (res.status === 200 && method !== 'HEAD' && res.text === '') problems.push('a 200 has a body')
      return problems
    }

    describe('GET and HEAD /events/<id>', () => {
      for (const method of ['GET', 'HEAD']) {
        it(`${method} on an existing event answers every combination as §13.2.2 orders: 412, 304 or 200`, async () => {
          const { event, tags } = await changedEvent()
          await runMatrix(async (combination) => {
            const res = await ctx.http(method, `/events/${event.id}`, {
              headers: conditionalHeaders(combination, tags),
            })
            const expected = expectedStatus(method, true, combination.ifMatch, combination.ifNoneMatch)
            return { res, expected, problems: readProblems(res, method, tags) }
          })
        })

        it(`${method} on a missing event answers 404 to every combination (§13.2.1)`, async () => {
          const { id, tags } = await deletedEvent()
          await runMatrix(async (combination) => ({
            res: await ctx.http(method, `/events/${id}`, { headers: conditionalHeaders(combination, tags) }),
            expected: expectedStatus(method, false, combination.ifMatch, combination.ifNoneMatch),
            problems: [],
          }))
        })
      }
    })

    describe('PUT, PATCH and DELETE /events/<id>', () => {
      const writes: Record<string, (id: number, n: number) => RequestOptions> = {
        PUT: (_id, n) => ({
          headers: jsonHeaders(ctx.service.editorAuth),
          body: { title: `Replaced ${n}`, date: '2027-03-01T10:00:00Z' },
        }),
        PATCH: (_id, n) => ({
          headers: jsonHeaders(ctx.service.editorAuth, types.mergePatch),
          body: { title: `Patched ${n}` },
        }),
        DELETE: () => ({ headers: { authorization: ctx.service.editorAuth } }),
      }

      for (const [method, request] of Object.entries(writes)) {
        it(`${method} on an existing event answers every combination as §13.2.2 orders, and writes exactly when 2xx`, async () => {
          let n = 0
          await runMatrix(async (combination) => {
            // A fresh event each time: a write that happens changes the tags of the next.
            const { event, tags } = await changedEvent()
            const options = request(event.id, ++n)
            const res = await ctx.http(method, `/events/${event.id}`, {
              ...options,
              headers: { ...options.headers, ...conditionalHeaders(combination, tags) },
            })
            const expected = expectedStatus(method, true, combination.ifMatch, combination.ifNoneMatch)
            const after = await ctx.http('GET', `/events/${event.id}`)
            const problems: string[] = []
            const written =
              method === 'DELETE'
                ? after.status === 404
                : after.status === 200 && after.json().title !== event.title
            if (written !== (res.status >= 200 && res.status < 300)) {
              problems.push(`answered ${res.status} but the event was ${written ? '' : 'not '}written`)
            }
            if (!written && (after.status !== 200 || after.header('etag') !== tags.current)) {
              problems.push('an unwritten event keeps its ETag')
            }
            if (written && method !== 'DELETE' && res.header('etag') !== after.header('etag')) {
              problems.push('a write answers with the ETag of the new state')
            }
            return { res, expected, problems }
          })
        })

        it(`${method} on a missing event answers 404 to every combination and creates nothing (§13.2.1)`, async () => {
          const { id, tags } = await deletedEvent()
          let n = 0
          await runMatrix(async (combination) => {
            const options = request(id, ++n)
            const res = await ctx.http(method, `/events/${id}`, {
              ...options,
              headers: { ...options.headers, ...conditionalHeaders(combination, tags) },
            })
            const after = await ctx.http('GET', `/events/${id}`)
            return {
              res,
              expected: expectedStatus(method, false, combination.ifMatch, combination.ifNoneMatch),
              problems: after.status === 404 ? [] : [`the event exists afterwards (${after.status})`],
            }
          })
        })
      }
    })

    describe('GET and HEAD /locations/<id>', () => {
      for (const method of ['GET', 'HEAD']) {
        it(`${method} on an existing location answers every combination as §13.2.2 orders`, async () => {
          const first = await ctx.http('GET', `/locations/${ctx.locationId}`)
          const current = first.header('etag') as string
          const tags = { current, stale: neverIssued(current) }
          await runMatrix(async (combination) => {
            const res = await ctx.http(method, `/locations/${ctx.locationId}`, {
              headers: conditionalHeaders(combination, tags),
            })
            const expected = expectedStatus(method, true, combination.ifMatch, combination.ifNoneMatch)
            return { res, expected, problems: readProblems(res, method, tags) }
          })
        })

        it(`${method} on a missing location answers 404 to every combination (§13.2.1)`, async () => {
          const tags = { current: '"v1"', stale: '"v1-old"' }
          await runMatrix(async (combination) => ({
            res: await ctx.http(method, '/locations/2147483000', {
              headers: conditionalHeaders(combination, tags),
            }),
            expected: expectedStatus(method, false, combination.ifMatch, combination.ifNoneMatch),
            problems: [],
          }))
        })
      }
    })

    describe('GET, HEAD and QUERY /events (the ETag is per page)', () => {
      const page = { per_page: 5 }
      const reads: Record<string, () => RequestOptions & { path: string }> = {
        GET: () => ({ path: '/events?per_page=5' }),
        HEAD: () => ({ path: '/events?per_page=5' }),
        QUERY: () => ({ path: '/events', headers: jsonHeaders(), body: page }),
      }

      for (const [method, request] of Object.entries(reads)) {
        it(`${method} of a page answers every combination as §13.2.2 orders: 412, 304 or 200`, async () => {
          // A stale tag: the page's ETag before an event was added to it.
          const before = await ctx.http('GET', '/events?per_page=5')
          await ctx.createEvent({ date: '1970-01-01T00:00:00Z' })
          const now = await ctx.http('GET', '/events?per_page=5')
          const tags = { current: now.header('etag') as string, stale: before.header('etag') as string }
          assert.notEqual(tags.current, tags.stale)
          await runMatrix(async (combination) => {
            const { path, headers, body } = request()
            const res = await ctx.http(method, path, {
              headers: { ...headers, ...conditionalHeaders(combination, tags) },
              ...(body !== undefined && { body }),
            })
            const expected = expectedStatus(method, true, combination.ifMatch, combination.ifNoneMatch)
            return { res, expected, problems: readProblems(res, method, tags) }
          })
        })
      }
    })

    describe('POST /events (the target is the collection, which always exists)', () => {
      it('compares with the ETag of GET /events without parameters, and creates exactly when 201', async () => {
        const collectionEtag = async () => (await ctx.http('GET', '/events')).header('etag') as string
        // A stale tag: the collection's ETag before an event was added.
        const stale = await collectionEtag()
        await ctx.createEvent()
        let n = 0
        await runMatrix(async (combination) => {
          // Each 201 changes the collection, so its current tag is read again every time.
          const tags = { current: await collectionEtag(), stale }
          const total = await ctx.totalEvents()
          const res = await ctx.http('POST', '/events', {
            headers: { ...jsonHeaders(ctx.service.editorAuth), ...conditionalHeaders(combination, tags) },
            body: ctx.newEventBody({ title: `Posted ${++n}` }),
          })
          const created = (await ctx.totalEvents()) - total
          const expected = expectedStatus('POST', true, combination.ifMatch, combination.ifNoneMatch)
          return {
            res,
            expected,
            problems: created === (res.status === 201 ? 1 : 0) ? [] : [`${created} events created`],
          }
        }, true)
      })
    })
  })
}

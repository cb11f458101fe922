// Content coding of answers (COMPRESSION, RFC 9110 §8.4): a body of 1 KB or more goes out in br
// or gzip when the client's Accept-Encoding takes one, with Vary: Accept-Encoding on every answer
// whose body could be coded. Smaller bodies gain little and cost a round of zlib: a single event or
// location (~250 bytes) is sent as it is.
//
// - Levels: br quality 3 and gzip level 3, measured with bench/compression-levels.ts. A page of
//   100 events (26 KB) becomes 5.7 % and 7.4 % of its bytes for 62 and 47 µs of CPU; quality 4 and
//   level 4 save 96 and 42 bytes more of it for 40 % and 60 % more CPU (88 and 76 µs), and a page
//   of 20 pays for quality 4 alone a larger hash table to clear (~45 against ~25 µs).
// - Output: zlib writes into chunks of chunkSize bytes, 16 KB unless told. A coded page is a
//   tenth of its size or less, so the chunk is sized to the body: a page of 20 no longer takes
//   16 KB of memory outside the heap for ~600 bytes of output (more CPU than its size suggests
//   too: the chunk is allocated for every answer, and freed only by the next collection).
// - ETags: a coded answer is another representation, so it has its own strong ETag (RFC 9110
//   §8.8.3): the identity tag with `+br` or `+gzip` inside the quotes (domain/etag.ts). Both name
//   the same state of the resource: If-Match and If-None-Match take either form, so a PUT with the
//   tag of a compressed GET succeeds, and a 304 answers with the very tag the client revalidated.
// - Streams (the change feed, whose events must each reach the client at once, and files sent as
//   streams) are never coded.
// - Coding runs synchronously on the event loop: for bodies this size (at most a page of
//   MAX_PER_PAGE) a zlib thread's hand-over costs about as much as the coding itself.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import type { FastifyReply } from 'fastify'
import { codedEtag } from '../domain/etag.ts'
import type { AnswerStep } from './answer-steps.ts'

export type Coding = 'br' | 'gzip'

/** Bodies smaller than this are sent as they are. */
export const minimumBytes = 1024

export const gzipLevel = 3
export const brotliQuality = 3

/**
 * The coding to answer with (RFC 9110 §12.5.3): br or gzip, whichever the field weighs higher (br
 * on a tie: it is the smaller), or undefined for none (no field, identity only, q=0 for both).
 */
export function preferredCoding(field: string | readonly string[] | undefined): Coding | undefined {
  if (field === undefined) return undefined
  const text = typeof field === 'string' ? field : field.join(',')
  if (text === lastField) return lastCoding
  const coding = choose(text)
  lastField = text
  lastCoding = coding
  return coding
}

// Clients send the same few fields over and over (a browser's, curl's, a library's).
let lastField: string | undefined
let lastCoding: Coding | undefined

function choose(text: string): Coding | undefined {
  let br: number | undefined
  let gzip: number | undefined
  let any: number | undefined
  for (const element of text.split(',')) {
    const [name = '', ...parameters] = element.split(';')
    const coding = name.trim().toLowerCase()
    let q = 1
    for (const parameter of parameters) {
      const [key, value] = parameter.split('=')
      if (key?.trim().toLowerCase() === 'q') q = Number(value?.trim())
    }
    if (!Number.isFinite(q) || q < 0 || q > 1) continue
    if (coding === 'br') br = q
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = Math.max(gzip ?? 0, q)
    else if (coding === '*') any = q
  }
  const brWeight = br ?? any ?? 0
  const gzipWeight = gzip ?? any ?? 0
  if (brWeight <= 0 && gzipWeight <= 0) return undefined
  return brWeight >= gzipWeight ? 'br' : 'gzip'
}

/** `body` in `coding`. */
export function encode(body: string | Buffer, coding: Coding): Buffer {
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length
  // A quarter of the body, in whole KB from 1 to 16: more output than that takes a second chunk.
  const chunkSize = Math.min(16_384, Math.max(1024, Math.ceil(size / 4096) * 1024))
  if (coding === 'gzip') return gzipSync(body, { level: gzipLevel, chunkSize })
  return brotliCompressSync(body, {
    chunkSize,
    params: {
      [constants.BROTLI_PARAM_QUALITY]: brotliQuality,
      [constants.BROTLI_PARAM_SIZE_HINT]: size,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  })
}

/** Images other than SVG are compressed already. */
const codable = (type: unknown) =>
  typeof type !== 'string' || !type.startsWith('image/') || type.startsWith('image/svg')

const noBody = (status: number) => status === 204 || status === 304 || status < 200

/** Vary with Accept-Encoding added, for a Vary field as it was: undefined when it needs none added. */
function withAcceptEncoding(text: string): string | undefined {
  if (text.trim() === '*') return undefined
  const named = text.toLowerCase().split(',')
  if (named.some((token) => token.trim() === 'accept-encoding')) return undefined
  return text === '' ? 'Accept-Encoding' : `${text}, Accept-Encoding`
}

// Nearly every answer reaches this hook with the same Vary (app.ts sets `Accept`, or
// `Accept, Origin` with CORS): the last field and its result are kept, not split again.
let lastVary = ''
let lastVaried = withAcceptEncoding('')

/** Adds Accept-Encoding to the answer's Vary unless it names it already. */
function addVary(reply: FastifyReply): void {
  const current = reply.getHeader('vary')
  const text = Array.isArray(current) ? current.join(', ') : typeof current === 'string' ? current : ''
  if (text !== lastVary) {
    lastVaried = withAcceptEncoding(text)
    lastVary = text
  }
  if (lastVaried !== undefined) reply.header('vary', lastVaried)
}

/** Codes an answer's body when the client takes a coding (an answer step: answer-steps.ts, run last). */
export const compressing: AnswerStep = (request, reply, payload) => {
  const bytes = typeof payload === 'string' || Buffer.isBuffer(payload)
  const status = reply.statusCode
  // A stream (the change feed) is never coded, so it does not vary with Accept-Encoding either.
  if ((!bytes && payload != null) || status === 204 || !codable(reply.getHeader('content-type'))) {
    return payload
  }
  addVary(reply)
  const coding = preferredCoding(request.headers['accept-encoding'])
  if (coding === undefined) return payload
  const etag = reply.getHeader('etag')
  if (noBody(status)) {
    // RFC 9110 §15.4.5: a 304 carries the ETag the 200 would have. Which one that is depends on
    // the body's size, which a 304 does not have: the client's own tag says what it holds.
    if (status === 304 && typeof etag === 'string') {
      const coded = codedEtag(etag, coding)
      if (request.headers['if-none-match']?.includes(coded)) reply.header('etag', coded)
    }
    return payload
  }
  // A string of fewer than a third of minimumBytes UTF-16 units is under it in UTF-8 too: a
  // single event (~250 bytes), the commonest answer, is not measured.
  if (typeof payload === 'string' && payload.length * 3 < minimumBytes) return payload
  if (!bytes || reply.hasHeader('content-encoding')) return payload
  const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length
  if (size < minimumBytes) return payload
  const body = encode(payload, coding)
  reply.header('content-encoding', coding)
  if (typeof etag === 'string') reply.header('etag', codedEtag(etag, coding))
  // Fastify measures the coded body; a length set for the identity body would be wrong.
  reply.removeHeader('content-length')
  return body
}

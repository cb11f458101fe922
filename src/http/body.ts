// Request bodies: JSON only, strictly UTF-8 (RFC 8259 §8.1), prototype-poisoning keys and duplicate
// member names (I-JSON, RFC 7493) refused.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import secureJson from 'secure-json-parse'
import { DomainError, echo } from '../domain/errors.ts'
import { duplicateMemberName } from './json-duplicates.ts'
import { checkSignedBody } from './signed-body.ts'

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    throw new DomainError('bad_request', 'the request body is not valid UTF-8')
  }
  // Only JSON's own whitespace (RFC 8259 §2) makes a body empty.
  if (/^[ \t\r\n]*$/.test(text)) return undefined
  let value: unknown
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    // secure-json-parse reports __proto__ and constructor.prototype keys as SyntaxErrors too.
    throw new DomainError(
      'bad_request',
      `the request body is not valid JSON: ${echo((error as Error).message)}`,
    )
  }
  // RFC 7493 §2.3: I-JSON objects have unique member names (json-duplicates.ts says why it matters).
  if (typeof value === 'object' && value !== null) {
    const duplicate = duplicateMemberName(text)
    if (duplicate !== undefined) {
      throw new DomainError(
        'bad_request',
        `the request body is not I-JSON (RFC 7493): the member name ${echo(JSON.stringify(duplicate))} occurs twice in one object`,
      )
    }
  }
  // An escaped unpaired surrogate ("\ud800") parses, but no UTF-8 store can keep it: it would be
  // saved as U+FFFD and differ from what the client sent and was answered (RFC 8259 §8.2). Strict
  // UTF-8 bytes cannot hold one, so only escapes need looking at.
  if (text.includes('\\u') && hasLoneSurrogate(value)) {
    throw new DomainError(
      'bad_request',
      'the request body is not valid JSON: a string holds an unpaired surrogate escape (\\ud800-\\udfff)',
    )
  }
  return value
}

// In a /u expression a surrogate pair is one code point, so only unpaired halves match.
const loneSurrogate = /\p{Cs}/u

function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return loneSurrogate.test(value)
  if (value === null || typeof value !== 'object') return false
  for (const [key, inner] of Object.entries(value)) {
    if (loneSurrogate.test(key) || hasLoneSurrogate(inner)) return true
  }
  return false
}

/** Replaces Fastify's parsers: only the given JSON types are read, everything else is refused early. */
export function registerBodyParsers(app: FastifyInstance, types: readonly string[]): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser([...types], { parseAs: 'buffer' }, (request: FastifyRequest, body, done) => {
    try {
      checkSignedBody(request, body as Buffer)
      done(null, parseJsonBody(body as Buffer))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
}

/** True when the request carries content (RFC 9112 §6.3), whatever its length turns out to be. */
export function hasContent(request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

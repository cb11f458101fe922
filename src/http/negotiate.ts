// Proactive negotiation (RFC 9110 §12.5.1) with `negotiator`, which honours q-values, wildcards
// and specificity. Pure functions, unit-tested apart from Fastify.
import Negotiator from 'negotiator'

const charsetParameter = /;\s*charset\s*=\s*("[^"]*"|[^;,]*)/gi

/** The offer the Accept field prefers, or undefined when none is acceptable (406). */
export function preferredType(accept: string | undefined, offers: readonly string[]): string | undefined {
  // An absent or empty Accept means any type (RFC 9110 §12.5.1).
  // A charset parameter says nothing about the type: JSON is always UTF-8 (RFC 8259 §8.1), and
  // common clients send `application/json; charset=utf-8`.
  const header = accept === undefined || accept.trim() === '' ? '*/*' : accept.replace(charsetParameter, '')
  return new Negotiator({ headers: { accept: header } }).mediaType([...offers])
}

export interface ContentType {
  readonly type: string
  readonly charset: string | undefined
}

/** `type/subtype; charset=x` → lower-cased essence and charset; undefined when unparseable. */
export function parseContentType(field: string | undefined): ContentType | undefined {
  if (field === undefined) return undefined
  const [essence = '', ...parameters] = field.split(';')
  const type = essence.trim().toLowerCase()
  if (!/^[\w.+-]+\/[\w.+-]+$/.test(type)) return undefined
  let charset: string | undefined
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=')
    if (name.trim().toLowerCase() === 'charset') charset = value.trim().replace(/^"|"$/g, '').toLowerCase()
  }
  return { type, charset }
}

// One request to the service over undici (Node 20's fetch refuses a body on GET): credentials
// (Basic, or a request signed with an API key by sign-request.ts), a JSON body, and the answer
// read and checked. Every failure becomes one of errors.ts; callers get only what they asked for.
import { type Dispatcher, request } from 'undici'
import { mediaTypes } from './contract/media-types.ts'
import type { Problem } from './contract/representations.ts'
import { NetworkError, ProblemError, UnexpectedResponseError } from './errors.ts'
import { signRequest } from './sign-request.ts'

/** Who the client is: a user and password (HTTP Basic) or an API key that signs each request. */
export type Credentials =
  | { readonly user: string; readonly password: string }
  | { readonly keyId: string; readonly secret: string }

export interface TransportOptions {
  readonly credentials?: Credentials
  /** An undici Dispatcher (an Agent with TLS options, a ProxyAgent, a MockAgent); undici's global one by default. */
  readonly dispatcher?: Dispatcher
  /** Extra header fields sent with every request (a User-Agent, X-Request-Id). */
  readonly headers?: Readonly<Record<string, string>>
}

export interface Outgoing {
  readonly method: string
  readonly url: URL
  /** What the caller can read, for Accept. */
  readonly accept: string
  /** Sent as JSON with this Content-Type. */
  readonly body?: { readonly contentType: string; readonly value: unknown }
  readonly headers?: Readonly<Record<string, string>>
  readonly signal?: AbortSignal
}

export interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  header(name: string): string | undefined
  /** The parsed JSON body, undefined for an answer without one (204, 304). */
  readonly json: unknown
}

/** Opens a request and returns undici's answer with its body unread (for a stream). */
export async function open(options: TransportOptions, outgoing: Outgoing): Promise<Dispatcher.ResponseData> {
  const body = outgoing.body === undefined ? undefined : JSON.stringify(outgoing.body.value)
  const headers: Record<string, string> = {
    ...options.headers,
    accept: outgoing.accept,
    ...outgoing.headers,
    ...(outgoing.body !== undefined && { 'content-type': outgoing.body.contentType }),
  }
  // Reads need no credentials (CONTRACT.md §4): sent with writes only, a signature's nonce and
  // the service's password check are spent where they count.
  if (writes.has(outgoing.method)) {
    Object.assign(headers, credentialFields(options.credentials, outgoing, headers, body))
  }
  try {
    return await request(outgoing.url, {
      method: outgoing.method as Dispatcher.HttpMethod,
      headers,
      ...(body !== undefined && { body }),
      ...(options.dispatcher && { dispatcher: options.dispatcher }),
      ...(outgoing.signal && { signal: outgoing.signal }),
    })
  } catch (error) {
    if (outgoing.signal?.aborted) throw error
    throw new NetworkError(describe(outgoing), { cause: error })
  }
}

/**
 * Sends a request and reads the whole answer: a 2xx or 304 of an expected media type (or with
 * no body), or else the error that explains it.
 */
export async function send(
  options: TransportOptions,
  outgoing: Outgoing,
  expected: readonly string[],
): Promise<Answer> {
  const res = await open(options, outgoing)
  let text: string
  try {
    text = await res.body.text()
  } catch (error) {
    throw new NetworkError(describe(outgoing), { cause: error })
  }
  const header = (name: string) => {
    const value = res.headers[name]
    return Array.isArray(value) ? value.join(', ') : value
  }
  const contentType = header('content-type')?.split(';')[0]?.trim().toLowerCase()
  const ok = (res.statusCode >= 200 && res.statusCode < 300) || res.statusCode === 304
  if (ok && text === '') return { status: res.statusCode, headers: res.headers, header, json: undefined }
  if (ok && contentType !== undefined && expected.includes(contentType)) {
    const json = parseJson(text)
    if (json !== undefined) return { status: res.statusCode, headers: res.headers, header, json }
  }
  if (!ok && contentType === mediaTypes.problem) {
    const problem = parseJson(text)
    if (isProblem(problem))
      throw new ProblemError(problem, describe(outgoing), retryAfter(header('retry-after')))
  }
  throw new UnexpectedResponseError(res.statusCode, contentType, excerpt(text), describe(outgoing))
}

/** Turns a refused answer of a stream (read here in full) into its error. */
export async function refusal(res: Dispatcher.ResponseData, outgoing: Outgoing): Promise<Error> {
  const text = await res.body.text().catch(() => '')
  const type = res.headers['content-type']
  const contentType = (Array.isArray(type) ? type[0] : type)?.split(';')[0]?.trim().toLowerCase()
  const problem = contentType === mediaTypes.problem ? parseJson(text) : undefined
  const retry = res.headers['retry-after']
  if (isProblem(problem))
    return new ProblemError(problem, describe(outgoing), retryAfter(Array.isArray(retry) ? retry[0] : retry))
  return new UnexpectedResponseError(res.statusCode, contentType, excerpt(text), describe(outgoing))
}

const writes = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export const describe = (outgoing: Pick<Outgoing, 'method' | 'url'>) =>
  `${outgoing.method} ${outgoing.url.href}`

function credentialFields(
  credentials: Credentials | undefined,
  outgoing: Outgoing,
  headers: Record<string, string>,
  body: string | undefined,
): Record<string, string> {
  if (!credentials) return {}
  if ('user' in credentials) {
    // RFC 7617 §2.1 with charset="UTF-8", which the service announces.
    const token = Buffer.from(`${credentials.user}:${credentials.password}`, 'utf8').toString('base64')
    return { authorization: `Basic ${token}` }
  }
  return {
    ...signRequest({
      method: outgoing.method,
      url: outgoing.url,
      headers,
      ...(body !== undefined && { body }),
      keyId: credentials.keyId,
      secret: credentials.secret,
    }),
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function isProblem(value: unknown): value is Problem {
  const p = value as Partial<Problem> | undefined
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.status === 'number' &&
    typeof p.title === 'string' &&
    typeof p.detail === 'string' &&
    typeof p.type === 'string' &&
    (p.errors === undefined || Array.isArray(p.errors))
  )
}

function retryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000))
}

const excerpt = (text: string) => text.slice(0, 200).replace(/\s+/g, ' ').trim()

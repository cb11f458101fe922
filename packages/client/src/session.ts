// What every part of a client shares: where the service is, how to reach it, the links of its
// entry point (read once), and the ETag of each representation it has read.
import { mediaTypes } from './contract/media-types.ts'
import type { EntryPointRepresentation } from './contract/representations.ts'
import { ClientError } from './errors.ts'
import { findLink, normaliseBase, resolveUri } from './links.ts'
import { send, type TransportOptions } from './transport.ts'

export interface Session {
  readonly base: URL
  readonly transport: TransportOptions
  /**
   * GET / (read once; read again after a failure). A `signal` stops the wait; it also stops the
   * read when this call is the one that starts it (so that a stopped change feed leaves no
   * request behind), and then every caller waiting for that read gets the abort.
   */
  entryPoint(signal?: AbortSignal): Promise<EntryPointRepresentation>
  /** The URL the entry point links with relation `rel`. */
  entryLink(rel: string, signal?: AbortSignal): Promise<URL>
  /** Where a `uri` of a representation or a Link field points. */
  resolve(uri: string): URL
  /** ETags of representations as read, by object: kept as long as the caller keeps the object. */
  readonly etags: WeakMap<object, string>
}

export function createSession(baseUrl: string | URL, transport: TransportOptions): Session {
  const base = normaliseBase(baseUrl)
  let entry: Promise<EntryPointRepresentation> | undefined
  const session: Session = {
    base,
    transport,
    etags: new WeakMap(),
    resolve: (uri) => resolveUri(base, uri),
    entryPoint(signal) {
      const outgoing = { method: 'GET', url: resolveUri(base, '/'), accept: mediaTypes.api, signal }
      entry ??= send(transport, outgoing, [mediaTypes.api, mediaTypes.json]).then(
        (answer) => answer.json as EntryPointRepresentation,
        (error: unknown) => {
          entry = undefined
          throw error
        },
      )
      return signal ? untilAborted(entry, signal) : entry
    },
    async entryLink(rel, signal) {
      const link = findLink((await session.entryPoint(signal)).links, rel)
      if (!link) throw new ClientError(`the entry point at ${base.href} has no link "${rel}"`)
      return session.resolve(link.uri)
    },
  }
  return session
}

/** `promise`, or the abort of `signal` if that comes first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason)
    signal.addEventListener('abort', stop, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop))
  })
}

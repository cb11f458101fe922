// What events and locations share as single resources: an id in the path, a stored version as
// the ETag, reads that honour preconditions, and writes answered with the resource as written.
import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import { mediaTypes } from '../contract/media-types.ts'
import { DomainError, invalidField } from '../domain/errors.ts'
import { versionEtag } from '../domain/etag.ts'
import { notModified } from './conditional.ts'
import type { Html } from './html/escape.ts'
import type { UrlOf } from './html/layout.ts'
import { htmlBody } from './html/send.ts'
import { parseId } from './ids.ts'
import type { Body, Operation } from './resource.ts'

/** The id in the path of a request to `/<collection>/:id`; `what` names the resource in a 404. */
export const pathId = (request: FastifyRequest, what: string): number =>
  parseId((request.params as { id: string }).id, what)

/**
 * PUT takes a representation back whole (CONTRACT.md §3): its `id`, when present, must be the
 * path's (a client that sends another is confused about what it replaces).
 */
export function requireSameId(sent: number | undefined, id: number): void {
  if (sent !== undefined && sent !== id) {
    throw invalidField('/id', `must equal the id in the path (${id}) or be left out`)
  }
}

/** GET (and HEAD) of a single resource; with `html`, also its HTML view, offered last. */
export function readOperation<T extends { version: number }>(resource: {
  readonly what: string
  readonly produces: readonly string[]
  readonly schema: FastifySchema
  get(id: number): Promise<T | undefined>
  represent(value: T): Body
  html?(url: UrlOf, value: T): Html | Promise<Html>
}): Operation {
  const { html } = resource
  return {
    produces: html ? [...resource.produces, mediaTypes.html] : resource.produces,
    etag: true,
    schema: resource.schema,
    async handler(request, reply) {
      const id = pathId(request, resource.what)
      const value = await resource.get(id)
      // RFC 9110 §13.2.1: a missing resource is a 404 whatever the preconditions say.
      if (!value) throw new DomainError('not_found', `there is no ${resource.what} ${id}`)
      if (html && request.representation === mediaTypes.html) {
        const page = await html((path) => request.externalUrl(path), value)
        return htmlBody(request, reply, page, `${resource.what} ${id}`)
      }
      if (notModified(request, reply, versionEtag(value.version), `${resource.what} ${id}`)) {
        reply.code(304)
        return undefined
      }
      reply.type(request.representation ?? (resource.produces[0] as string))
      return resource.represent(value)
    },
  }
}

/**
 * The answer to a write: the resource as written (the body), its ETag, in the negotiated type
 * (else `type`).
 */
export function writtenBody<B extends Body>(
  reply: FastifyReply,
  version: number,
  type: string,
  representation: B,
): B {
  reply.header('etag', versionEtag(version)).type(reply.request.representation ?? type)
  return representation
}

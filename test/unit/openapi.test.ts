// http/openapi.ts: an operation's statuses, fields and parameters follow from its traits alone.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EventCreate, EventsQueryBody } from '../../src/contract/schemas.ts'
import { openApiDocument } from '../../src/http/openapi.ts'
import { pathTemplate } from '../../src/http/openapi-wording.ts'
import type { Resource } from '../../src/http/resource.ts'

const handler = async () => undefined
const info = { title: 't', version: '1', description: 'd' }
// biome-ignore lint/suspicious/noExplicitAny: the document is inspected by path
const documentOf = (url: string, resource: Resource): any => openApiDocument([{ url, resource }], info)
const statuses = (operation: { responses: object }) => Object.keys(operation.responses)

describe('openApiDocument', () => {
  it('writes Fastify path parameters as templates', () => {
    assert.equal(pathTemplate('/events/:id'), '/events/{id}')
  })

  it('gives a plain read 200, 400, 401, 406, 415, 429, 500 and 503, with HEAD beside it and OPTIONS', () => {
    const doc = documentOf('/things', { GET: { produces: ['application/json'], handler } })
    const item = doc.paths['/things']
    // 400: malformed percent-encoding in the target (or no Host), on every operation.
    assert.deepEqual(statuses(item.get), ['200', '400', '401', '406', '415', '429', '500', '503'])
    assert.deepEqual(statuses(item.head), statuses(item.get))
    assert.equal(item.head.responses[200].content, undefined, 'HEAD has no body')
    assert.deepEqual(statuses(item.options), ['204', '400', '413', '415', '500'])
    assert.equal(item.options.responses[204].headers.Allow.required, true)
  })

  it('derives a created write with a body, an ETag and an idempotency key', () => {
    const doc = documentOf('/things', {
      POST: {
        write: true,
        created: true,
        etag: true,
        idempotencyKey: true,
        produces: ['application/json'],
        consumes: ['application/json'],
        bodyRequired: true,
        schema: { body: EventCreate },
        handler,
      },
    })
    const post = doc.paths['/things'].post
    assert.deepEqual(statuses(post), [
      '201',
      '400',
      '401',
      '403',
      '406',
      '412',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ])
    assert.equal(post.responses[201].headers.Location.required, true)
    assert.equal(post.responses[201].headers.ETag.required, true)
    assert.deepEqual(post.security, [{ basic: [] }, { signature: [] }])
    assert.equal(post.requestBody.required, true)
    assert.deepEqual(post.requestBody.content['application/json'].schema, {
      $ref: '#/components/schemas/EventCreate',
    })
    const headers = post.parameters.map((p: { $ref: string }) => p.$ref)
    assert.ok(headers.includes('#/components/parameters/IdempotencyKey'))
    assert.ok(headers.includes('#/components/parameters/IfMatch'))
    assert.ok('EventCreate' in doc.components.schemas)
    assert.ok('Problem' in doc.components.schemas)
  })

  it('gives a paged read its body fields as query parameters, Link, 304 and 400 (not 422)', () => {
    const doc = documentOf('/things', {
      GET: {
        paged: true,
        etag: true,
        validationStatus: 400,
        produces: ['application/json'],
        consumes: ['application/json'],
        schema: { body: EventsQueryBody },
        handler,
      },
      QUERY: { paged: true, produces: ['application/json'], consumes: ['application/json'], handler },
    })
    const item = doc.paths['/things']
    const query = item.get.parameters
      .filter((p: { in?: string }) => p.in === 'query')
      .map((p: { name: string }) => p.name)
    assert.deepEqual(query, ['page', 'per_page', 'from', 'to', 'location_id', 'q'])
    assert.equal(item.get.responses[200].headers.Link.required, true)
    assert.ok('304' in item.get.responses && '400' in item.get.responses && !('422' in item.get.responses))
    assert.ok(item['x-query'], 'QUERY is the x-query extension')
    assert.equal(item.get.requestBody.required, false)
  })

  it('declares ids as integers from 1 on the path item, with 404, and 409 where a conflict is named', () => {
    const doc = documentOf('/things/:id', { DELETE: { write: true, conflict: 'it is in use', handler } })
    const item = doc.paths['/things/{id}']
    assert.deepEqual(item.parameters[0].schema.type, 'integer')
    assert.equal(item.parameters[0].schema.minimum, 1)
    assert.deepEqual(statuses(item.delete), [
      '204',
      '400',
      '401',
      '403',
      '404',
      '409',
      '415',
      '429',
      '500',
      '503',
    ])
    assert.equal(item.delete.responses[204].content, undefined)
  })
})

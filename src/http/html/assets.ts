// The files the HTML view loads from the service itself (never from another host): its
// stylesheet, its forms' script and its icon. Each path carries a hash of the content, so a file
// can be cached for a year and a new release is fetched under a new name.
import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { registerResource } from '../resource.ts'
import { formsScript } from './forms-script.ts'
import { stylesheet } from './stylesheet.ts'

export interface Asset {
  readonly path: string
  readonly type: string
  readonly body: Buffer
}

function asset(name: string, extension: string, type: string, text: string): Asset {
  const body = Buffer.from(text)
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12)
  return { path: `/assets/${name}-${hash}.${extension}`, type, body }
}

const icon =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f4e79"/>' +
  '<path d="M4 5h8M4 8h8M4 11h5" stroke="#fff" stroke-width="1.5"/></svg>'

export const assets = {
  style: asset('style', 'css', 'text/css; charset=utf-8', stylesheet),
  forms: asset('forms', 'js', 'text/javascript; charset=utf-8', formsScript),
  icon: asset('icon', 'svg', 'image/svg+xml', icon),
} as const

export function assetRoutes(app: FastifyInstance): void {
  for (const { path, type, body } of Object.values(assets)) {
    registerResource(app, path, {
      GET: {
        produces: [type.split(';')[0] as string],
        async handler(_request, reply) {
          reply.header('cache-control', 'public, max-age=31536000, immutable').type(type)
          return body
        },
      },
    })
  }
}

// X-Request-Id: the id of a request in its access line and in every line it logs, echoed in the
// response. A request id the client sent is kept when it is short and plain; otherwise a new one.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/

export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers['x-request-id']
  return typeof sent === 'string' && saneRequestId.test(sent) ? sent : randomUUID()
}

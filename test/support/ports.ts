// A TCP port nothing listens on at this moment, for a server a test starts (PgBouncer, clusters).
import { once } from 'node:events'
import { createServer } from 'node:net'

export async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  server.close()
  await once(server, 'close')
  return port
}

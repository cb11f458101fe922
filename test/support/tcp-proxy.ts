// A TCP proxy between the service and its database that a test can cut and restore, to see how
// the service behaves when the database goes away — without touching the real database server.
import { connect, createServer, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  readonly port: number
  /** Drops every open connection; new ones are refused (`refuse`) or accepted and left hanging (`hang`). */
  cut(mode?: 'refuse' | 'hang'): Promise<void>
  /** Forwards connections again. */
  restore(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let mode: 'forward' | 'hang' = 'forward'
  let server: Server | undefined
  let port = 0

  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        track(client)
        if (mode === 'hang') return
        const upstream = connect(target.port, target.host)
        track(upstream)
        client.pipe(upstream).pipe(client)
        client.once('close', () => upstream.destroy())
        upstream.once('close', () => client.destroy())
      })
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        const address = server?.address()
        if (address && typeof address === 'object') port = address.port
        resolve()
      })
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      if (!server?.listening) return resolve()
      server.close(() => resolve())
    })

  await listen()
  return {
    get port() {
      return port
    },
    async cut(how = 'refuse') {
      await stop()
      if (how === 'hang') {
        mode = 'hang'
        await listen()
      }
    },
    async restore() {
      await stop()
      mode = 'forward'
      await listen()
    },
    close: stop,
  }
}

/** A proxy in front of the server a database URL names, and the same URL through the proxy. */
export async function proxyDatabase(databaseUrl: string): Promise<{ proxy: TcpProxy; viaProxy: string }> {
  const direct = new URL(databaseUrl)
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
  const viaProxy = new URL(databaseUrl)
  viaProxy.port = String(proxy.port)
  return { proxy, viaProxy: viaProxy.toString() }
}

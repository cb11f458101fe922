// Run as a script of its own (test/unit/lazy-dependencies.test.ts): builds and starts the app on
// an in-memory SQLite store with the settings of its environment, answers one request, and prints
// which of the dependencies that only some deployments need were loaded.
import type { request as Request } from 'node:http'
import { createRequire } from 'node:module'
import { buildApp } from '../../src/app.ts'
import { configFromEnvironment } from '../../src/config.ts'
import { prepareDatabase } from '../../src/prepare.ts'
import { openStore, storeOptions } from '../../src/store/open-store.ts'

// Required, as the service does (http/server-factory.ts): an import would itself load undici.
const requireHere = createRequire(import.meta.url)
const { request } = requireHere('node:http') as { request: typeof Request }
const config = configFromEnvironment({ ...process.env, DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'warn' })
const store = openStore(config.databaseUrl, storeOptions(config))
await prepareDatabase(store, { ...config, adminPassword: 'probe-password-1' })
const app = buildApp({ config, store })
await app.listen({ port: 0, host: '127.0.0.1' })
const { port } = app.server.address() as { port: number }
const status = await new Promise<number>((resolve, reject) =>
  request({ port, host: '127.0.0.1', path: '/events/1', headers: { accept: 'application/json' } }, (res) => {
    res.resume()
    res.on('end', () => resolve(res.statusCode ?? 0))
  })
    .on('error', reject)
    .end(),
)
const cache = Object.keys(requireHere.cache)
process.stdout.write(
  `${JSON.stringify({
    status,
    ioredis: cache.some((path) => path.includes('/node_modules/ioredis/')),
    pg: cache.some((path) => path.includes('/node_modules/pg/')),
    undici: (process as unknown as { moduleLoadList: string[] }).moduleLoadList.includes(
      'NativeModule internal/deps/undici/undici',
    ),
  })}\n`,
)
await app.close()
await store.close()

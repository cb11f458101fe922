// Instances of the service in this process, several on one new database, as separate
// deployments would run them: for tests of what instances share (nonces, remembered keys).
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.ts'
import { parseConfig } from '../../src/config.ts'
import { prepareDatabase } from '../../src/prepare.ts'
import type { KyselyStore } from '../../src/store/kysely-store.ts'
import { openStore, storeOptions } from '../../src/store/open-store.ts'
import { checkedClient, type Http } from './contract.ts'
import { type ServiceSettings, send } from './service.ts'
import type { StoreTarget } from './stores.ts'

export interface Instance {
  readonly app: FastifyInstance
  readonly store: KyselyStore
  readonly authority: string
  readonly http: Http
}

/** `count` instances of the service on one new database, as separate deployments would run. */
export async function startInstances(target: StoreTarget, settings: ServiceSettings, count: number) {
  const database = await target.create()
  const config = parseConfig({
    logLevel: 'silent',
    seed: 'false',
    ...database.settings,
    ...settings,
    databaseUrl: database.databaseUrl,
    port: '0',
    host: '127.0.0.1',
  })
  const instances: Instance[] = []
  for (let i = 0; i < count; i++) {
    const store = openStore(config.databaseUrl, storeOptions(config))
    await prepareDatabase(store, config)
    const app = buildApp({ config, store })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address()
    const port = typeof address === 'object' && address ? address.port : 0
    const baseUrl = `http://127.0.0.1:${port}`
    instances.push({
      app,
      store,
      authority: `127.0.0.1:${port}`,
      http: checkedClient({ request: (method, path, options) => send(baseUrl, method, path, options) }),
    })
  }
  return {
    instances,
    async close() {
      for (const { app, store } of instances) {
        await app.close()
        await store.close()
      }
      await database.drop()
    },
  }
}

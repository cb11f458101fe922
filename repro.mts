import { openStore } from './src/store/open-store.ts'
const a = openStore('postgres://postgres@127.0.0.1:5432/ers_prof', {})
const b = openStore('postgres://postgres@127.0.0.1:5432/ers_prof', {})
const ops: Promise<unknown>[] = []
for (let i = 0; i < 60; i++) {
  ops.push((i % 2 ? a : b).createEvent({ title: `c${i}`, date: Date.UTC(2027, 0, 1), locationId: 1 }))
  ops.push((i % 2 ? b : a).deleteEvent(100 + i))
}
const results = await Promise.allSettled(ops)
for (const r of results) if (r.status === 'rejected') { console.log(r.reason); break }
console.log(results.filter((r) => r.status === 'fulfilled').length, 'ok of', results.length)
await a.close(); await b.close()

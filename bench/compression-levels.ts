// Bytes against CPU for each gzip level and brotli quality, on pages of the event collection as the
// service writes them (`node --import tsx bench/compression-levels.ts`). How the service's levels
// were chosen (src/http/compression.ts, docs/configuration.md): the cheapest setting that brings a
// page of 100 under a quarter of its size with room to spare.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { representCollection } from '../src/http/represent.ts'

/** A page as the bench's data set makes it: titles numbered, dates spread, a location per 100. */
function page(size: number, first = 4_711): string {
  const events = Array.from({ length: size }, (_, i) => {
    const id = first + i
    return {
      id,
      title: `Benchmark event #${id}`,
      date: Date.UTC(2027, 0, 1) + ((id * 7_919) % 3_000) * 3_600_000,
      locationId: 1 + (id % 100),
      version: 1,
    }
  })
  return JSON.stringify(representCollection(10_000, events))
}

function cpuPerOp(run: () => void): number {
  for (let i = 0; i < 50; i++) run()
  const rounds = 2_000
  const start = process.cpuUsage()
  for (let i = 0; i < rounds; i++) run()
  const used = process.cpuUsage(start)
  return (used.user + used.system) / rounds
}

const settings: [string, (body: Buffer) => Buffer][] = [
  ...[1, 3, 4, 6, 9].map((level): [string, (body: Buffer) => Buffer] => [
    `gzip -${level}`,
    (body) => gzipSync(body, { level }),
  ]),
  ...[1, 3, 4, 5, 6, 11].map((quality): [string, (body: Buffer) => Buffer] => [
    `br q${quality}`,
    (body) =>
      brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: quality,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      }),
  ]),
]

for (const size of [20, 100]) {
  const body = Buffer.from(page(size))
  console.log(`page of ${size}: ${body.length} bytes`)
  for (const [name, compress] of settings) {
    const out = compress(body).length
    const cpu = cpuPerOp(() => compress(body))
    console.log(
      `  ${name.padEnd(9)} ${String(out).padStart(6)} bytes  ${((100 * out) / body.length).toFixed(1).padStart(5)} %  ${cpu.toFixed(0).padStart(5)} µs CPU`,
    )
  }
}

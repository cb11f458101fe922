// Fills a database to a chosen size the way an operator would: a generated import file, loaded by
// the service's own importer (`node dist/cli/main.js import FILE`), then the editor user and an
// API key made with the same tool.
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCommand } from './processes.ts'

export interface Credentials {
  readonly user: string
  readonly password: string
  /** Needed by the server to open the sealed key secrets. */
  readonly keyEncryptionKey: string
  readonly key: { readonly id: string; readonly secret: string }
}

export interface Dataset {
  readonly events: number
  readonly locations: number
}

/** A location for every 100 events, at most 1,000 of them. */
export const locationsFor = (events: number) => Math.min(1_000, Math.max(1, Math.ceil(events / 100)))

/**
 * Writes an import file of `events` events, streamed (a million events make about 80 MB).
 * Event ids come out 1..events in file order; dates are spread so that date order is not id order.
 */
export async function writeImportFile(path: string, events: number): Promise<Dataset> {
  const locations = locationsFor(events)
  const out = createWriteStream(path)
  let buffered = ''
  const write = async (text: string) => {
    buffered += text
    if (buffered.length < 1 << 20) return
    if (!out.write(buffered)) await once(out, 'drain')
    buffered = ''
  }
  const start = Date.UTC(2027, 0, 1)
  let id = 0
  await write('{"locations":[')
  for (let l = 0; l < locations; l++) {
    const count = Math.floor(events / locations) + (l < events % locations ? 1 : 0)
    await write(
      `${l > 0 ? ',' : ''}{"name":"Venue ${l + 1}","address":"${l + 1} Benchmark Street","events":[`,
    )
    for (let e = 0; e < count; e++) {
      id++
      // A multiplicative scramble spreads the dates over about 19 years, minute by minute.
      const minute = (id * 7_919) % 10_000_019
      const date = new Date(start + minute * 60_000).toISOString().replace('.000Z', 'Z')
      await write(`${e > 0 ? ',' : ''}{"title":"Benchmark event #${id}","date":"${date}"}`)
    }
    await write(']}')
  }
  await write(']}')
  out.end(buffered)
  await once(out, 'finish')
  return { events, locations }
}

const cli = (args: string[]) => [process.execPath, 'dist/cli/main.js', ...args]

/** Imports `events` generated events into the (new) database, and adds the benchmark's user and key. */
export async function fillDatabase(
  databaseUrl: string,
  events: number,
  credentials: Credentials | undefined,
  log: (line: string) => void,
): Promise<{ dataset: Dataset; credentials: Credentials }> {
  const dir = mkdtempSync(join(tmpdir(), 'ers-bench-import-'))
  const env = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }
  try {
    const file = join(dir, 'events.json')
    const dataset = await writeImportFile(file, events)
    const started = Date.now()
    await runCommand(cli(['import', file]), env)
    log(
      `imported ${events.toLocaleString('en')} events at ${dataset.locations} locations in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    )
    const user = credentials?.user ?? 'bench'
    const password = credentials?.password ?? randomBytes(18).toString('base64url')
    const keyEncryptionKey = credentials?.keyEncryptionKey ?? randomBytes(32).toString('base64')
    // Side by side: each is mostly a process starting (and a password hash).
    const [, keyJson] = await Promise.all([
      runCommand(cli(['users', 'add', user, '--role', 'editor', `--password=${password}`]), env),
      runCommand(cli(['keys', 'add', 'bench', '--role', 'editor', '--json']), {
        ...env,
        KEY_ENCRYPTION_KEY: keyEncryptionKey,
      }),
    ])
    const key = JSON.parse(keyJson) as { id: string; secret: string }
    return { dataset, credentials: { user, password, keyEncryptionKey, key } }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// The commands that put data into the database, check it or copy it: locations, the import, the
// recount, the backup.
import { backup } from './backup.ts'
import { out, prepare, progressLine, type ServiceCommand, warn, withStore } from './command-support.ts'
import { CliError } from './errors.ts'

export const dataCommands: readonly ServiceCommand[] = [
  {
    name: 'locations add',
    operands: [],
    options: ['name', 'address'],
    synopsis: '--name N --address A',
    help: 'add a location and print its id',
    run: async ({ options, config }) => {
      const name = typeof options.name === 'string' ? options.name.trim() : ''
      const address = typeof options.address === 'string' ? options.address.trim() : ''
      if (!name || !address) throw new CliError('locations add needs --name N and --address A')
      // The rules of the import format, so that both ways of adding a location agree.
      const { locationProblems } = await import('./import-file.ts')
      const problems = locationProblems({ name, address })
      if (problems.length > 0) throw new CliError(problems.join('; '))
      await withStore(config, async (store) => {
        await prepare(store, { addsData: true })
        // Two locations alike are allowed (two halls at one address may share a name), but more
        // often a command run twice: say so, and add it all the same.
        const twin = await store.findLocation({ name, address })
        if (twin) warn(`location ${twin.id} already has this name and address; adding another`)
        out(String((await store.createLocation({ name, address })).id))
      })
    },
  },
  {
    name: 'locations list',
    operands: [],
    options: ['json'],
    synopsis: '[--json]',
    help: 'list every location: id, name, address\n(--json: an array of {"id", "name", "address"})',
    run: ({ options, config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        const locations: { id: number; name: string; address: string }[] = []
        // Page by page, in id order, as GET /locations serves them.
        for (let page = 1; ; page++) {
          const { total, locations: found } = await store.listLocations({ page, perPage: 100 })
          locations.push(...found.map(({ id, name, address }) => ({ id, name, address })))
          if (found.length === 0 || locations.length >= total) break
        }
        if (options.json) return out(JSON.stringify(locations))
        const idWidth = Math.max(0, ...locations.map((l) => String(l.id).length))
        const nameWidth = Math.max(0, ...locations.map((l) => [...l.name].length))
        for (const { id, name, address } of locations) {
          out(
            `${String(id).padStart(idWidth)}  ${name}${' '.repeat(nameWidth - [...name].length)}  ${address}`,
          )
        }
      }),
  },
  {
    name: 'import',
    operands: ['FILE'],
    options: [],
    synopsis: '',
    help:
      'load locations and their events from a JSON file\n' +
      '(PostgreSQL: in one transaction; SQLite: in short ones\n' +
      'beside live writes; format: docs/import.schema.json,\n' +
      'sample: examples/events.json)',
    run: async ({ operands: [file = ''], config }) => {
      const { readImportFile } = await import('./import-file.ts')
      const { locations, events } = await readImportFile(file)
      await withStore(config, async (store) => {
        await prepare(store, { addsData: true })
        const result = await store.importLocations(locations, progressLine(events))
        if (process.stderr.isTTY) process.stderr.write('\n')
        out(`imported ${result.locations} locations and ${result.events} events`)
      })
    },
  },
  {
    name: 'recount',
    operands: [],
    options: [],
    synopsis: '',
    help:
      'count the events from their rows, print the kept counts\n' +
      'that differed (total, date buckets) and repair them in\n' +
      'one transaction; safe while the service runs',
    run: ({ config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        await (await import('./recount.ts')).recountEvents(store, out)
      }),
  },
  {
    name: 'backup',
    operands: ['FILE'],
    options: [],
    synopsis: '',
    help: 'copy the SQLite database to the new file FILE,\nwhile the service keeps running',
    run: ({ operands: [file = ''], config }) => withStore(config, (store) => backup(store, file)),
  },
]

// The `locations …` commands of `ers` and `ers-client` that speak HTTP: get, create, update and
// delete, as the events commands do (the same flags style, output and exit statuses; writes back
// with If-Match the ETag of the location as read). `locations add` and `locations list` of the
// server's `ers` open the database instead.

import { locationTable, printLine } from './client-output.ts'
import type { ClientCommand } from './command-table.ts'
import { connectionOptions, integer, type Options, speaking, text } from './connection.ts'
import { UsageError } from './errors.ts'

const locationFields = (options: Options) => ({
  ...(options.name !== undefined && { name: text(options.name) }),
  ...(options.address !== undefined && { address: text(options.address) }),
})

export const locationCommands: readonly ClientCommand[] = [
  {
    client: true,
    name: 'locations get',
    operands: ['ID'],
    options: [...connectionOptions, 'table'],
    synopsis: '[--table]',
    help: 'one location, from the service',
    run: ({ operands: [id], options }) =>
      speaking(options, async (client) => {
        const location = await client.locations.get(integer(id, 'ID') as number)
        printLine(options.table ? locationTable([location]) : JSON.stringify(location))
      }),
  },
  {
    client: true,
    name: 'locations create',
    operands: [],
    options: [...connectionOptions, 'name', 'address', 'table'],
    synopsis: '--name N --address A',
    help: 'create a location through the service and print it\n(needs an editor)',
    run: ({ options }) =>
      speaking(options, async (client) => {
        const { name, address } = locationFields(options)
        if (name === undefined || address === undefined) {
          throw new UsageError('locations create needs --name N and --address A')
        }
        const location = await client.locations.create({ name, address })
        printLine(options.table ? locationTable([location]) : JSON.stringify(location))
      }),
  },
  {
    client: true,
    name: 'locations update',
    operands: ['ID'],
    options: [...connectionOptions, 'name', 'address', 'table'],
    synopsis: '[--name N] [--address A]',
    help:
      'change the fields given: reads the location, then\n' +
      'sends a merge patch with If-Match its ETag; prints\n' +
      'the result',
    run: ({ operands: [id], options }) =>
      speaking(options, async (client) => {
        const changes = locationFields(options)
        const locationId = integer(id, 'ID') as number
        if (Object.keys(changes).length === 0) {
          throw new UsageError('locations update needs at least one of --name, --address')
        }
        const location = await client.locations.patch(await client.locations.get(locationId), changes)
        printLine(options.table ? locationTable([location]) : JSON.stringify(location))
      }),
  },
  {
    client: true,
    name: 'locations delete',
    operands: ['ID'],
    options: connectionOptions,
    synopsis: '',
    help: 'delete a location (read first, deleted with If-Match)',
    run: ({ operands: [id], options }) =>
      speaking(options, async (client) => {
        await client.locations.delete(await client.locations.get(integer(id, 'ID') as number))
      }),
  },
]

// The `events …` commands of `ers` and `ers-client`: list, get, create, update, delete and watch
// the change feed, over HTTP through this package's client.

import { eventTable, printJson, printLine } from './client-output.ts'
import type { ClientCommand } from './command-table.ts'
import { connectionOptions, integer, type Options, programName, speaking, text } from './connection.ts'
import { UsageError } from './errors.ts'

const eventFields = (options: Options) => ({
  ...(options.title !== undefined && { title: text(options.title) }),
  ...(options.date !== undefined && { date: text(options.date) }),
  ...(options.location !== undefined && { location_id: integer(options.location, '--location') }),
})

export const eventCommands: readonly ClientCommand[] = [
  {
    client: true,
    name: 'events list',
    operands: [],
    options: [...connectionOptions, 'page', 'per-page', 'all', 'location', 'from', 'to', 'q', 'table'],
    synopsis: '[--page N] [--per-page M] [--all] [--table] [filters]',
    help:
      'a page of events as the service sends it; --all:\n' +
      'every event found, one JSON line each; filters:\n' +
      '--location ID, --from D, --to D, --q TEXT',
    run: ({ options }) =>
      speaking(options, async (client) => {
        const query = {
          perPage: integer(options['per-page'], '--per-page'),
          locationId: integer(options.location, '--location'),
          from: text(options.from),
          to: text(options.to),
          q: text(options.q),
        }
        if (options.all) {
          if (options.page !== undefined) throw new UsageError('--all reads every page: leave out --page')
          const events = []
          for await (const event of client.events.all(query)) {
            if (options.table) events.push(event)
            else printJson(event)
          }
          if (options.table) printLine(eventTable(events))
          return
        }
        const page = await client.events.list({ ...query, page: integer(options.page, '--page') })
        if (!options.table) return printJson(page.representation)
        printLine(eventTable(page.items))
        printLine(`(${page.items.length} of ${page.total} events)`)
      }),
  },
  {
    client: true,
    name: 'events get',
    operands: ['ID'],
    options: [...connectionOptions, 'table'],
    synopsis: '[--table]',
    help: 'one event',
    run: ({ operands: [id], options }) =>
      speaking(options, async (client) => {
        const event = await client.events.get(integer(id, 'ID') as number)
        printLine(options.table ? eventTable([event]) : JSON.stringify(event))
      }),
  },
  {
    client: true,
    name: 'events create',
    operands: [],
    options: [...connectionOptions, 'title', 'date', 'location', 'table'],
    synopsis: '--title T --date D --location ID',
    help: 'create an event and print it (needs an editor)',
    run: ({ options }) =>
      speaking(options, async (client) => {
        const { title, date, location_id } = eventFields(options)
        if (title === undefined || date === undefined || location_id === undefined) {
          throw new UsageError('events create needs --title T, --date D and --location ID')
        }
        const event = await client.events.create({ title, date, location_id })
        printLine(options.table ? eventTable([event]) : JSON.stringify(event))
      }),
  },
  {
    client: true,
    name: 'events update',
    operands: ['ID'],
    options: [...connectionOptions, 'title', 'date', 'location', 'table'],
    synopsis: '[--title T] [--date D] [--location ID]',
    help:
      'change the fields given: reads the event, then sends a\n' +
      'merge patch with If-Match its ETag; prints the result',
    run: ({ operands: [id], options }) =>
      speaking(options, async (client) => {
        const changes = eventFields(options)
        const eventId = integer(id, 'ID') as number
        if (Object.keys(changes).length === 0) {
          throw new UsageError('events update needs at least one of --title, --date, --location')
        }
        const event = await client.events.patch(await client.events.get(eventId), changes)
        printLine(options.table ? eventTable([event]) : JSON.stringify(event))
      }),
  },
  {
    client: true,
    name: 'events delete',
    operands: ['ID'],
    options: connectionOptions,
    synopsis: '',
    help: 'delete an event (read first, deleted with If-Match)',
    run: ({ operands: [id], options }) =>
      speaking(options, async (client) => {
        await client.events.delete(await client.events.get(integer(id, 'ID') as number))
      }),
  },
  {
    client: true,
    name: 'events watch',
    operands: [],
    options: [...connectionOptions, 'after'],
    synopsis: '[--after N]',
    help:
      'the change feed: one JSON line per change,\n' +
      '{"event", "id", "data"}, until interrupted: SIGINT\n' +
      '(Ctrl-C) or SIGTERM close the connection and exit 0;\n' +
      'reconnects by itself, missing nothing;\n' +
      '--after N: first the kept changes after change N',
    run: async ({ options }) => {
      // Listening before anything else: a signal sent by PID (a supervisor, `kill`, `timeout`)
      // as the command starts must stop it as cleanly as one that comes once it is watching.
      const stop = new AbortController()
      const interrupt = () => stop.abort()
      process.once('SIGINT', interrupt).once('SIGTERM', interrupt)
      try {
        const after = integer(options.after, '--after', 0)
        await speaking(options, async (client) => {
          if (stop.signal.aborted) return
          const feed = client.events.changes({
            ...(after !== undefined && { lastEventId: after }),
            signal: stop.signal,
            onReconnect: ({ delayMs, reason }) =>
              process.stderr.write(
                `${programName()}: the change feed was interrupted (${(reason as Error)?.message ?? reason}); ` +
                  `reconnecting in ${Math.ceil(delayMs / 100) / 10} s\n`,
              ),
          })
          for await (const change of feed) {
            const data = change.kind === 'reset' ? { links: change.links } : change.event
            printJson({ event: change.kind, id: change.id, data })
          }
        })
      } finally {
        process.off('SIGINT', interrupt).off('SIGTERM', interrupt)
      }
    },
  },
]

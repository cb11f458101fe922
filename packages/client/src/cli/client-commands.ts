// The client commands (`events …`, `locations get|create|update|delete`): the table `ers-client`
// runs, and the one the server's `ers` adds to its own, so that both offer the same commands
// from the same code. They speak HTTP to a running service through this package's client.
import type { ClientCommand } from './command-table.ts'
import { defaultServiceUrl } from './connection.ts'
import { eventCommands } from './event-commands.ts'
import { locationCommands } from './location-commands.ts'

export const clientCommands: readonly ClientCommand[] = [...eventCommands, ...locationCommands]

/** The usage's paragraph on the client commands' connection. */
export const clientUsage = `Client commands (events …, locations get|create|update|delete) speak HTTP
to a running service:
  --url U                 ERS_URL (default ${defaultServiceUrl})
  --user U --password P   ERS_USER, ERS_PASSWORD: HTTP Basic, for writes
  --key K --secret S      ERS_KEY, ERS_SECRET: signed requests (a key wins over a user)
  --table                 a table for people instead of JSON
`

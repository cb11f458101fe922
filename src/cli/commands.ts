// The commands of `ers`: what each takes, what it does, and the usage text made from the same table.
import {
  type ClientCommand,
  clientCommands,
  clientUsage,
  usageLines,
} from '@event-resource-service/client/cli'
import { environmentNames } from '../config.ts'
import { accountCommands } from './account-commands.ts'
import { out, type ServiceCommand, withStore } from './command-support.ts'
import { dataCommands } from './data-commands.ts'

export { type CommandOption, commandOptions, type Invocation } from './command-support.ts'

/** A service command, or a client command of the client package (the same table `ers-client` runs). */
export type Command = ServiceCommand | ClientCommand

export const commands: readonly Command[] = [
  {
    name: 'serve',
    operands: [],
    options: [],
    synopsis: '',
    help: 'run the HTTP service until SIGTERM',
    // Loaded only when used (here, the import schema and the store below): `ers --help` or a
    // usage error answers without loading the HTTP stack, the database drivers or TypeBox.
    run: async ({ config }) => (await import('../server.ts')).serve(config),
  },
  {
    name: 'migrate',
    operands: [],
    options: [],
    synopsis: '',
    help: 'bring the database schema up to date',
    run: ({ config }) =>
      withStore(config, async (store) => {
        const applied = await store.migrate()
        out(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date')
      }),
  },
  ...accountCommands,
  ...dataCommands,
  ...clientCommands,
]

/** The usage text, from the table above and the settings. */
export function usage(): string {
  const rows = Object.entries(environmentNames).map(([key, env]) => [`  --${kebab(key)}`, env] as const)
  // Each flag and its variable on one line, however long the longest flag.
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2
  const settings = rows.map(([flag, env]) => flag.padEnd(width) + env)
  return `Usage: ers <command> [options]

Commands:
${usageLines(commands)}

Settings (flag, or environment variable):
${settings.join('\n')}

${clientUsage}
Exit status: 0 done; 1 failed (the database or the service could not be
reached, the service refused); 2 the command line or the input is wrong.
`
}

export function kebab(key: string) {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}

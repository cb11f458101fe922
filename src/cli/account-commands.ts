// The commands that manage who may use the service: users and API keys.
import { hashPassword } from '../auth/passwords.ts'
import { passwordProblem } from '../domain/password-policy.ts'
import { type Role, roles } from '../domain/types.ts'
import { out, prepare, readStdin, type ServiceCommand, withStore } from './command-support.ts'
import { CliError } from './errors.ts'

export const accountCommands: readonly ServiceCommand[] = [
  {
    name: 'users add',
    operands: ['NAME'],
    options: ['role', 'password'],
    synopsis: '[--role editor|reader] [--password P]',
    help:
      'add a user, or change their role and password\n' +
      '(role: editor unless given; --password is the new\n' +
      "user's; without it, it is read from standard input)",
    run: async ({ operands: [name = ''], options, config }) => {
      const role = (options.role ?? 'editor') as Role
      if (!roles.includes(role)) throw new CliError(`--role must be one of ${roles.join(', ')}`)
      if (!/^[^:\s][^:]{0,99}$/.test(name) || /\s$/.test(name)) {
        throw new CliError('NAME must be 1–100 characters, without ":" or surrounding spaces')
      }
      const password =
        typeof options.password === 'string' ? options.password : (await readStdin()).replace(/\r?\n$/, '')
      const weak = passwordProblem(password)
      if (weak) throw new CliError(weak)
      const hash = await hashPassword(password, config)
      await withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        const user = await store.putUser(name, role, hash)
        out(`user "${user.name}" saved with role ${user.role}`)
      })
    },
  },
  {
    name: 'users remove',
    operands: ['NAME'],
    options: [],
    synopsis: '',
    help: 'remove a user',
    run: ({ operands: [name = ''], config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        if (!(await store.removeUser(name))) throw new CliError(`there is no user "${name}"`)
        out(`user "${name}" removed`)
      }),
  },
  {
    name: 'users list',
    operands: [],
    options: ['json'],
    synopsis: '[--json]',
    help: 'list every user and their role\n(--json: an array of {"name", "role"})',
    run: ({ options, config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        // Only what an operator needs: the password hash never leaves the store this way.
        const users = (await store.listUsers()).map(({ name, role }) => ({ name, role }))
        if (options.json) return out(JSON.stringify(users))
        const width = Math.max(0, ...users.map((u) => [...u.name].length))
        for (const { name, role } of users) out(`${name}${' '.repeat(width - [...name].length)}  ${role}`)
      }),
  },
  {
    name: 'keys add',
    operands: ['NAME'],
    options: ['role', 'json'],
    synopsis: '[--role editor|reader] [--json]',
    help:
      'add an API key for signed requests and print its id\n' +
      'and secret, once (role: editor unless given; needs\n' +
      'KEY_ENCRYPTION_KEY; --json: {"id", "secret"}); a name\n' +
      'already taken is warned about and added all the same',
    run: async ({ operands: [name = ''], options, config }) => {
      const role = (options.role ?? 'editor') as Role
      if (!roles.includes(role)) throw new CliError(`--role must be one of ${roles.join(', ')}`)
      const { addKey, encryptionKeyOf, keyNameProblem } = await import('./keys.ts')
      const problem = keyNameProblem(name)
      if (problem) throw new CliError(problem)
      const encryptionKey = encryptionKeyOf(config)
      await withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        await addKey(store, { name, role, json: options.json === true, encryptionKey })
      })
    },
  },
  {
    name: 'keys list',
    operands: [],
    options: ['json'],
    synopsis: '[--json]',
    help:
      'list every API key: id, role, created, revoked, name\n' +
      '(never a secret; --json: an array of {"id", "name",\n' +
      '"role", "created_at", "revoked_at"})',
    run: ({ options, config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        await (await import('./keys.ts')).listKeys(store, { json: options.json === true })
      }),
  },
  {
    name: 'keys revoke',
    operands: ['ID'],
    options: [],
    synopsis: '',
    help: 'revoke an API key: every instance refuses it at once',
    run: ({ operands: [id = ''], config }) =>
      withStore(config, async (store) => {
        await prepare(store, { addsData: false })
        await (await import('./keys.ts')).revokeKey(store, id)
      }),
  },
]

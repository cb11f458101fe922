// `ers keys add|list|revoke` as a user runs them (bin/ers.js, the compiled build), and what the
// server does with the keys: a printed secret signs requests a running server accepts, a revoked
// key is refused, and a server refuses to start when keys exist that it could not verify.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, beforeEach, describe, it } from 'node:test'
import { signRequest } from '../../packages/client/src/sign-request.ts'
import { openSecret } from '../../src/auth/api-key-secrets.ts'
import { keyBytes } from '../../src/config.ts'
import { openStore } from '../../src/store/open-store.ts'
import { poll, runCli, runServerToExit, startServerProcess } from '../support/process.ts'
import { send } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const keyEncryptionKey = randomBytes(32).toString('base64')

for (const target of storeTargets) {
  describe(`[${target.name}] ers keys`, () => {
    let env: Record<string, string>
    const drops: (() => Promise<void>)[] = []
    beforeEach(async () => {
      const made = await target.create()
      drops.push(made.drop)
      env = { DATABASE_URL: made.databaseUrl, KEY_ENCRYPTION_KEY: keyEncryptionKey }
    })
    after(async () => {
      for (const drop of drops) await drop()
    })

    async function storedKey(id: string) {
      const store = openStore(env.DATABASE_URL as string)
      try {
        return await store.findApiKey(id)
      } finally {
        await store.close()
      }
    }

    async function addKey(...args: string[]): Promise<{ id: string; secret: string }> {
      const result = await runCli(['keys', 'add', ...args, '--json'], env)
      assert.equal(result.code, 0, result.stderr)
      return JSON.parse(result.stdout)
    }

    it('keys add prints the id and secret once; the database holds only the sealed secret', async () => {
      const json = await runCli(['keys', 'add', 'ci bot', '--json'], env)
      assert.equal(json.code, 0, json.stderr)
      const printed = JSON.parse(json.stdout)
      assert.deepEqual(Object.keys(printed), ['id', 'secret'])
      assert.match(printed.id, /^k_[A-Za-z0-9_-]{16}$/)
      assert.match(printed.secret, /^[A-Za-z0-9_-]{43}$/)

      const text = await runCli(['keys', 'add', 'deploy', '--role', 'reader'], env)
      assert.equal(text.code, 0, text.stderr)
      assert.match(text.stdout, /^key k_\S+ \("deploy", reader\) created; its secret is shown only now:\n/)
      const id = /^id: +(k_\S+)$/m.exec(text.stdout)?.[1]
      const secret = /^secret: +(\S+)$/m.exec(text.stdout)?.[1]
      assert.ok(id && secret, text.stdout)

      // A thief of the database gets the sealed form, which is not the secret and opens only
      // under KEY_ENCRYPTION_KEY, kept outside the database.
      const stored = await storedKey(printed.id)
      assert.equal(stored?.name, 'ci bot')
      assert.equal(stored?.role, 'editor')
      assert.ok(stored && !stored.sealedSecret.includes(printed.secret))
      assert.equal(
        openSecret(stored.sealedSecret, printed.id, keyBytes(keyEncryptionKey) as Buffer),
        printed.secret,
      )
      assert.equal(openSecret(stored.sealedSecret, printed.id, randomBytes(32)), undefined)
      // Bound to its key id (the associated data): the sealed value does not open as another key's.
      assert.equal(openSecret(stored.sealedSecret, id, keyBytes(keyEncryptionKey) as Buffer), undefined)
    })

    it('keys add warns when a key of that name exists, and adds it all the same (exit 0)', async () => {
      const first = await runCli(['keys', 'add', 'deploy', '--json'], env)
      assert.equal(first.code, 0, first.stderr)
      assert.equal(first.stderr, '', 'a new name: no warning')
      const { id: firstId } = JSON.parse(first.stdout)
      const again = await runCli(['keys', 'add', 'deploy', '--json'], env)
      assert.equal(again.code, 0, again.stderr)
      assert.equal(
        again.stderr,
        `ers: warning: a key named "deploy" already exists: ${firstId}; adding another\n`,
      )
      const { id: secondId } = JSON.parse(again.stdout)
      assert.notEqual(secondId, firstId)
      assert.equal((await storedKey(secondId))?.name, 'deploy', 'added all the same')
      // A revoked key of that name is named too, as revoked: a rotation's old key, say.
      assert.equal((await runCli(['keys', 'revoke', firstId], env)).code, 0)
      const third = await runCli(['keys', 'add', 'deploy'], env)
      assert.equal(third.code, 0, third.stderr)
      assert.match(
        third.stderr,
        /^ers: warning: a key named "deploy" already exists: (.+); adding another\n$/,
      )
      const named = /already exists: (.+); adding/.exec(third.stderr)?.[1]?.split(', ').sort()
      assert.deepEqual(named, [`${firstId} (revoked)`, secondId].sort())
      assert.match(third.stdout, /^key k_\S+ \("deploy", editor\) created/)
    })

    it('keys list shows id, role, state and name, never a secret', async () => {
      const first = await addKey('first')
      const second = await addKey('second', '--role', 'reader')
      const list = await runCli(['keys', 'list'], env)
      assert.equal(list.code, 0, list.stderr)
      const lines = list.stdout.trimEnd().split('\n')
      assert.equal(lines.length, 2)
      assert.match(
        lines[0] ?? '',
        new RegExp(`^${first.id}  editor  \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  active  first$`),
      )
      assert.match(lines[1] ?? '', new RegExp(`^${second.id}  reader  \\S+  active  second$`))
      const json = await runCli(['keys', 'list', '--json'], env)
      const keys = JSON.parse(json.stdout)
      assert.deepEqual(
        keys.map((k: Record<string, unknown>) => Object.keys(k)),
        [0, 1].map(() => ['id', 'name', 'role', 'created_at', 'revoked_at']),
      )
      for (const output of [list.stdout, json.stdout]) {
        assert.ok(!output.includes(first.secret) && !output.includes(second.secret), 'no secret is listed')
        assert.doesNotMatch(output, /v1\./, 'nor a sealed one')
      }
    })

    it('keys revoke marks the key revoked, once; an unknown id is exit 2', async () => {
      const key = await addKey('short-lived')
      const revoked = await runCli(['keys', 'revoke', key.id], env)
      assert.equal(revoked.code, 0, revoked.stderr)
      assert.match(revoked.stdout, new RegExp(`key ${key.id} revoked`))
      const at = (await storedKey(key.id))?.revokedAt
      assert.ok(at !== undefined)
      assert.equal((await runCli(['keys', 'revoke', key.id], env)).code, 0, 'revoking again is harmless')
      assert.equal((await storedKey(key.id))?.revokedAt, at, 'and keeps the first time')
      const list = await runCli(['keys', 'list', '--json'], env)
      assert.equal(JSON.parse(list.stdout)[0].revoked_at, new Date(at).toISOString())
      const unknown = await runCli(['keys', 'revoke', 'k_nonexistent00000'], env)
      assert.equal(unknown.code, 2)
      assert.match(unknown.stderr, /no key "k_nonexistent00000"/)
    })

    it('keys add refuses without KEY_ENCRYPTION_KEY, a bad role or an empty name, and stores nothing', async () => {
      const { KEY_ENCRYPTION_KEY: _, ...withoutKey } = env
      const result = await runCli(['keys', 'add', 'nope'], withoutKey)
      assert.equal(result.code, 2)
      assert.match(result.stderr, /^ers: KEY_ENCRYPTION_KEY is not set/)
      assert.equal((await runCli(['keys', 'add', 'nope', '--role', 'admin'], env)).code, 2)
      assert.equal((await runCli(['keys', 'add', '  '], env)).code, 2)
      assert.equal((await runCli(['keys', 'list'], env)).stdout, '')
    })

    it('a printed key signs writes a running server accepts, until keys revoke; a reader key gets 403', async () => {
      const key = await addKey('writer')
      const readerKey = await addKey('watcher', '--role', 'reader')
      const server = await startServerProcess({ ...env, SEED: 'true' })
      try {
        const signedDelete = async (id: number, by: { id: string; secret: string }) => {
          const url = `${server.baseUrl}/events/${id}`
          const fields = signRequest({ method: 'DELETE', url, keyId: by.id, secret: by.secret })
          return send(server.baseUrl, 'DELETE', `/events/${id}`, { headers: { ...fields } })
        }
        assert.equal((await signedDelete(1, readerKey)).status, 403)
        assert.equal((await signedDelete(1, key)).status, 204)
        assert.equal((await runCli(['keys', 'revoke', key.id], env)).code, 0)
        const refused = await signedDelete(2, key)
        assert.equal(refused.status, 401)
        assert.equal((await send(server.baseUrl, 'GET', '/events/2')).status, 200)
        // The log names the rule; the client hears only that the signature is not valid.
        assert.equal(refused.json().detail, 'the request signature is not valid')
        // Log lines are written in batches (at most 100 ms apart).
        const refusal = /"rule":"the key is revoked"[^\n]*request signature refused/
        await poll(() => refusal.test(server.output()))
      } finally {
        server.child.kill('SIGTERM')
        await server.exited
      }
    })

    it('the server refuses to start while keys exist and KEY_ENCRYPTION_KEY is missing or another', async () => {
      await addKey('needs the key')
      const { KEY_ENCRYPTION_KEY: _, ...withoutKey } = env
      const missing = await runServerToExit(withoutKey)
      assert.equal(missing.code, 1)
      assert.match(
        missing.stderr,
        /^ers: could not start: 1 API key\(s\) exist, but KEY_ENCRYPTION_KEY, under which their secrets are stored, is not set\nhint: set KEY_ENCRYPTION_KEY/,
      )
      const other = await runServerToExit({ ...env, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') })
      assert.equal(other.code, 1)
      assert.match(
        other.stderr,
        /^ers: could not start: KEY_ENCRYPTION_KEY does not open the secret of API key k_/,
      )
    })
  })
}

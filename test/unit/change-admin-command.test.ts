import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { changeAdminCommand } from '../../src/server.ts'

describe('changeAdminCommand', () => {
  it('is the plain command on the default database', () => {
    assert.equal(changeAdminCommand('sqlite:./data/events.db'), 'npx ers users add admin --role editor')
  })

  it('names the database in force, so the CLI acts on it and not on the default SQLite file', () => {
    assert.equal(
      changeAdminCommand('sqlite:/var/lib/ers/events.db'),
      "DATABASE_URL='sqlite:/var/lib/ers/events.db' npx ers users add admin --role editor",
    )
  })

  it('redacts the password of a PostgreSQL URL', () => {
    assert.equal(
      changeAdminCommand('postgres://ers:s3cret@db.example:5432/events'),
      "DATABASE_URL='postgres://ers:***@db.example:5432/events' npx ers users add admin --role editor",
    )
  })
})

// The client package's representation types are written from the server's TypeBox schemas
// (src/contract/client-types.ts): the committed file must be what the schemas write, and each type
// must be exactly `Static<>` of its schema (checked by the type checker: `npm run typecheck`).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import type { Static } from 'typebox'
import type * as written from '../../packages/client/src/contract/representations.ts'
import { clientTypes, clientTypesPath, clientTypesText } from '../../src/contract/client-types.ts'

/** True only when A and B are the same type (neither merely assignable to the other). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
type Schemas = typeof clientTypes
/** Each written type against `Static<>` of its schema: a `false` here fails the type check. */
const sameAsStatic: { readonly [Name in keyof Schemas]: true } = {
  Link: true satisfies Same<Static<Schemas['Link']>, written.Link>,
  EntryPointRepresentation: true satisfies Same<
    Static<Schemas['EntryPointRepresentation']>,
    written.EntryPointRepresentation
  >,
  EventRepresentation: true satisfies Same<
    Static<Schemas['EventRepresentation']>,
    written.EventRepresentation
  >,
  EventCollectionRepresentation: true satisfies Same<
    Static<Schemas['EventCollectionRepresentation']>,
    written.EventCollectionRepresentation
  >,
  LocationRepresentation: true satisfies Same<
    Static<Schemas['LocationRepresentation']>,
    written.LocationRepresentation
  >,
  LocationCollectionRepresentation: true satisfies Same<
    Static<Schemas['LocationCollectionRepresentation']>,
    written.LocationCollectionRepresentation
  >,
  Problem: true satisfies Same<Static<Schemas['Problem']>, written.Problem>,
  EventCreate: true satisfies Same<Static<Schemas['EventCreate']>, written.EventCreate>,
  EventReplace: true satisfies Same<Static<Schemas['EventReplace']>, written.EventReplace>,
  EventPatch: true satisfies Same<Static<Schemas['EventPatch']>, written.EventPatch>,
  LocationCreate: true satisfies Same<Static<Schemas['LocationCreate']>, written.LocationCreate>,
  LocationReplace: true satisfies Same<Static<Schemas['LocationReplace']>, written.LocationReplace>,
  LocationPatch: true satisfies Same<Static<Schemas['LocationPatch']>, written.LocationPatch>,
  PagingBody: true satisfies Same<Static<Schemas['PagingBody']>, written.PagingBody>,
  EventsQueryBody: true satisfies Same<Static<Schemas['EventsQueryBody']>, written.EventsQueryBody>,
}

describe('the client package’s representation types', () => {
  it(`are ${clientTypesPath}, exactly as the TypeBox schemas write them`, () => {
    const committed = readFileSync(new URL(`../../${clientTypesPath}`, import.meta.url), 'utf8')
    assert.equal(
      committed,
      clientTypesText(),
      `${clientTypesPath} is out of date with src/contract/schemas.ts: run \`npm run schema\` and commit it`,
    )
  })

  it('are each checked against Static<> of their schema', () => {
    assert.deepEqual(Object.keys(sameAsStatic), Object.keys(clientTypes))
  })
})

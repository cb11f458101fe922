import { DomainError, echo } from '../domain/errors.ts'

/** Path ids are positive decimal integers in the safe range; anything else names no resource. */
export function parseId(text: string, what: string): number {
  const id = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(id)) throw new DomainError('not_found', `there is no ${what} ${echo(text)}`)
  return id
}

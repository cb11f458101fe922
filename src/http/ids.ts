import { DomainError, echo } from '../domain/errors.ts'

const decimalId = /^[1-9]\d{0,15}$/

/** Path ids are positive decimal integers in the safe range; anything else names no resource. */
export function parseId(text: string, what: string): number {
  const id = decimalId.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(id)) throw new DomainError('not_found', `there is no ${what} ${echo(text)}`)
  return id
}

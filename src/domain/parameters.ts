// Collection parameters arrive in the JSON body, in the query string, or in both (CONTRACT.md §3):
// one rule for all of them, so paging and filters cannot drift apart.
import { type DomainError, echo } from './errors.ts'

/**
 * The value of one parameter, read from the body, the query string, or both; a parameter given in
 * both must mean the same (`same`: equal instants for dates, say, however they are written).
 */
export function agreeing<T>(
  name: string,
  fromBody: T | undefined,
  fromQuery: T | undefined,
  fail: (message: string) => DomainError,
  same: (a: T, b: T) => boolean = Object.is,
): T | undefined {
  if (fromBody !== undefined && fromQuery !== undefined && !same(fromBody, fromQuery)) {
    throw fail(
      `${name} is ${echo(JSON.stringify(fromBody))} in the body but ${echo(JSON.stringify(fromQuery))} in the query string`,
    )
  }
  return fromBody ?? fromQuery
}

/**
 * A query-string value written as a plain integer (no sign, no leading zero, no fraction), or
 * undefined. A repeated parameter (?page=1&page=2) arrives as an array: ambiguous, so refused too.
 */
export function plainInteger(value: unknown): number | undefined {
  return typeof value === 'string' && /^(0|[1-9]\d{0,15})$/.test(value) ? Number(value) : undefined
}

// How `pg` hands values to the store, and how the service's connections are shared out.
import type pg from 'pg'
import { pgDriver } from './pg-driver.ts'

// int8 (OID 20) arrives as text because it can exceed 2^53. Here it holds ids, epoch
// milliseconds and counts, all inside the safe integer range, so the store gets plain numbers.
const parseInt8 = (text: string) => Number(text)
export const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pgDriver().types.builtins.INT8 && format !== 'binary'
      ? parseInt8
      : pgDriver().types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

/** The costly reads' connections and the rest's, out of `poolSize` (see PostgresOptions). */
export function poolShares(poolSize: number, costlyReadConnections: number) {
  const costly = costlyReadConnections > 0 ? costlyReadConnections : Math.max(1, Math.floor(poolSize / 4))
  return { costly, cheap: Math.max(1, poolSize - costly) }
}

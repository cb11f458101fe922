// What a password hash may cost. OWASP's Password Storage Cheat Sheet lists five Argon2id
// configurations (p=1) that "provide an equal level of defense", trading memory for passes. A
// check holds its memory while it runs, and the service runs two at once: 19 MiB each at OWASP's
// first choice, 7 MiB at its last, for ~30 % less CPU here (docs/security.md). So the default is
// the last, and a cost is accepted when it is at least one of the five in both memory and passes.
import type { Config } from '../settings.ts'

/** The cost of new hashes, as configured (Config satisfies it). */
export type HashCost = Pick<Config, 'passwordHashMemoryKib' | 'passwordHashTimeCost'>

const cost = (passwordHashMemoryKib: number, passwordHashTimeCost: number): HashCost =>
  Object.freeze({ passwordHashMemoryKib, passwordHashTimeCost })

/** OWASP's Argon2id configurations, m in KiB and t passes, p=1: each as strong as the others. */
export const owaspConfigurations: readonly HashCost[] = Object.freeze([
  cost(47_104, 1),
  cost(19_456, 2),
  cost(12_288, 3),
  cost(9_216, 4),
  cost(7_168, 5),
])

/** The default cost of new hashes: OWASP's configuration with the least memory. */
export const defaultHashCost: HashCost = cost(7_168, 5)

/** Whether `candidate` is at least as strong as one of OWASP's configurations. */
export const meetsOwasp = (candidate: HashCost): boolean =>
  owaspConfigurations.some(
    (floor) =>
      candidate.passwordHashMemoryKib >= floor.passwordHashMemoryKib &&
      candidate.passwordHashTimeCost >= floor.passwordHashTimeCost,
  )

/** OWASP's configurations as a reader writes them: "m=19456 with t=2, …". */
export const owaspConfigurationsText = owaspConfigurations
  .map((c) => `m=${c.passwordHashMemoryKib} with t=${c.passwordHashTimeCost}`)
  .join(', ')

// A counting semaphore: memory-hard hashing costs ~20 MiB and tens of ms each, so only a few run at
// once and the rest queue instead of exhausting memory and the libuv pool. The queue is bounded
// too: past it, work is refused at once (`overloaded`) rather than left to wait without end.
import { DomainError } from '../domain/errors.ts'

export class Limiter {
  #active = 0
  readonly #waiting: (() => void)[] = []
  constructor(
    private readonly max: number,
    private readonly maxWaiting = Number.POSITIVE_INFINITY,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= this.max && this.#waiting.length >= this.maxWaiting) {
      throw new DomainError(
        'overloaded',
        'too many requests are waiting for a credential check; try again shortly',
      )
    }
    if (this.#active >= this.max) await new Promise<void>((resolve) => this.#waiting.push(resolve))
    else this.#active++
    try {
      return await work()
    } finally {
      const next = this.#waiting.shift()
      if (next) next()
      else this.#active--
    }
  }
}

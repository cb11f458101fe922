// A counting semaphore: memory-hard hashing costs ~20 MiB and tens of ms each, so only a few run at
// once and the rest queue instead of exhausting memory and the libuv pool.
export class Limiter {
  #active = 0
  readonly #waiting: (() => void)[] = []
  constructor(private readonly max: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
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

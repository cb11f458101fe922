// One reader of the change log per process, fanning each change out to every feed connection:
// however many clients subscribe, a committed change costs one query. The store wakes the reader
// (this process's writes at once; other processes through notifications or a poll, see
// EventStore.watchChanges); the reader reads everything numbered above what it last delivered,
// in order, and hands each change, rendered once, to every subscriber.
import type { Change } from '../domain/change.ts'
import type { EventStore } from '../store/event-store.ts'

export interface Subscriber {
  /** A change in number order, with its rendered message; never a number twice. */
  deliver(seq: number, message: string): void
}

type ChangeSource = Pick<EventStore, 'changesAfter' | 'changeLogBounds' | 'watchChanges'>

const batchSize = 500
/** After a failed read (the database away), when to try again without waiting for a wake. */
const retryReadMs = 1_000

export class ChangeHub {
  readonly #subscribers = new Set<Subscriber>()
  /** The last number delivered; undefined while nobody listens (then nothing is read). */
  #lastSeen: number | undefined
  #reading: Promise<void> | undefined
  #starting: Promise<void> | undefined
  #again = false
  #stopWatching: (() => Promise<void>) | undefined
  #retry: NodeJS.Timeout | undefined

  constructor(
    private readonly source: ChangeSource,
    private readonly render: (change: Change) => string,
    private readonly log: { warn(object: object, message: string): void },
  ) {}

  get subscribers(): number {
    return this.#subscribers.size
  }

  /**
   * Adds `subscriber`. Once this resolves, every change committed after this moment is delivered
   * to it; changes before may be delivered too (a subscriber skips numbers it has sent).
   */
  async subscribe(subscriber: Subscriber): Promise<void> {
    this.#subscribers.add(subscriber)
    this.#stopWatching ??= this.source.watchChanges(this.#wake)
    while (this.#lastSeen === undefined) {
      await this.#reading
      if (this.#lastSeen !== undefined) break
      this.#starting ??= this.source
        .changeLogBounds()
        .then(({ newest }) => {
          this.#lastSeen ??= newest
          // Wakes that came while the starting point was unknown read nothing: read now.
          this.#wake()
        })
        .finally(() => {
          this.#starting = undefined
        })
      await this.#starting
    }
  }

  unsubscribe(subscriber: Subscriber): void {
    this.#subscribers.delete(subscriber)
  }

  async close(): Promise<void> {
    clearTimeout(this.#retry)
    this.#subscribers.clear()
    await this.#stopWatching?.()
    this.#stopWatching = undefined
    await this.#reading
  }

  /** Single flight: a wake while reading makes one more read afterwards. */
  readonly #wake = () => {
    if (this.#reading) {
      this.#again = true
      return
    }
    this.#reading = this.#read().finally(() => {
      this.#reading = undefined
      if (!this.#again) return
      this.#again = false
      this.#wake()
    })
  }

  async #read(): Promise<void> {
    if (this.#subscribers.size === 0) {
      // Nobody to tell: the next subscriber starts from the log's newest number instead.
      this.#lastSeen = undefined
      return
    }
    try {
      for (;;) {
        if (this.#lastSeen === undefined) return
        const changes = await this.source.changesAfter(this.#lastSeen, batchSize)
        for (const change of changes) {
          const message = this.render(change)
          this.#lastSeen = change.seq
          for (const subscriber of this.#subscribers) subscriber.deliver(change.seq, message)
        }
        if (changes.length < batchSize) return
      }
    } catch (error) {
      this.log.warn({ err: error }, 'could not read the change log; trying again')
      clearTimeout(this.#retry)
      this.#retry = setTimeout(this.#wake, retryReadMs)
      this.#retry.unref()
    }
  }
}

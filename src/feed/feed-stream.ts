// One client's feed: what it has been sent, the live changes held back while its missed ones are
// replayed, and the cut-off for a reader too slow to keep up.
//
// Resuming without a gap or a duplicate: the stream subscribes to the live fan-out first and holds
// what arrives, then replays from the log everything after the client's last number, then sends
// the held changes, skipping numbers already sent. Numbers are strictly increasing in commit
// order, so "skip what is not above the last sent" is the whole rule.
import { PassThrough } from 'node:stream'
import type { Subscriber } from './change-hub.ts'
import { sseComment } from './sse.ts'

export interface FeedStreamOptions {
  /** Bytes written but not yet taken by the client (here and in the socket) beyond which it is dropped. */
  readonly maxBufferedBytes: number
  /** Bytes the socket holds that the client has not taken yet. */
  readonly socketBuffered: () => number
  /** Called once when the stream ends, however it ends. */
  readonly onEnd: () => void
}

export class FeedStream implements Subscriber {
  /** What the response body is read from. */
  readonly body = new PassThrough()
  #lastSent = 0
  /** Live changes that came while the replay ran; undefined once live. */
  #held: [number, string][] | undefined = []
  #ended = false

  /** `after`: the number the client last received (Last-Event-ID); nothing up to it is sent. */
  constructor(
    private readonly options: FeedStreamOptions,
    after = 0,
  ) {
    this.#lastSent = after
    this.body.once('close', () => this.#finish())
    // A client that went away: the write fails, the stream closes, nothing more to do.
    this.body.on('error', () => {})
  }

  get ended(): boolean {
    return this.#ended
  }

  deliver(seq: number, message: string): void {
    if (this.#held) this.#held.push([seq, message])
    else this.send(seq, message)
  }

  /** Sends the change unless a later or equal number has gone already. */
  send(seq: number, message: string): void {
    if (this.#ended || seq <= this.#lastSent) return
    this.#lastSent = seq
    this.write(message)
  }

  /** Replay done: what was held goes out (minus what the replay sent), then changes go out as they come. */
  goLive(): void {
    const held = this.#held ?? []
    this.#held = undefined
    for (const [seq, message] of held) this.send(seq, message)
  }

  /** Resolves when the client has taken what was written (or the stream has ended). */
  async drained(): Promise<void> {
    if (this.#ended || !this.body.writableNeedDrain) return
    await new Promise<void>((resolve) => {
      const done = () => {
        this.body.off('drain', done)
        this.body.off('close', done)
        resolve()
      }
      this.body.on('drain', done)
      this.body.on('close', done)
    })
  }

  heartbeat(): void {
    this.write(sseComment('keep-alive'))
  }

  write(text: string): void {
    if (this.#ended) return
    this.body.write(text)
    // The client can take up the feed again with Last-Event-ID; memory spent on it cannot be.
    const buffered = this.body.writableLength + this.body.readableLength + this.options.socketBuffered()
    if (buffered > this.options.maxBufferedBytes) {
      this.body.destroy()
      this.#finish()
    }
  }

  /** Ends the response cleanly; the client may resume from the last id it received. */
  end(): void {
    if (this.#ended) return
    this.body.end()
    this.#finish()
  }

  #finish() {
    if (this.#ended) return
    this.#ended = true
    this.#held = undefined
    this.options.onEnd()
  }
}

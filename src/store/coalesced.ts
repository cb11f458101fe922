// A piece of background work asked for often and run at most once at a time (postgres.ts: the
// notification after a write).
import { setTimeout as delay } from 'node:timers/promises'

/**
 * `send` starts `work` unless it is already running; then it runs once more when the current run
 * ends, for whatever asked meanwhile, after `gapMs` (so that under a steady stream of asks the
 * work runs at most once per its own time plus the gap; an ask after a quiet spell starts it at
 * once). `settled` waits for the runs asked for so far.
 */
export function coalesced(work: () => Promise<void>, onError: (error: unknown) => void, gapMs = 0) {
  let running: Promise<void> | undefined
  let again = false
  const run = async () => {
    do {
      again = false
      await work().catch(onError)
      if (again && gapMs > 0) await delay(gapMs)
    } while (again)
    running = undefined
  }
  return {
    send() {
      if (running) again = true
      else running = run()
    },
    settled: async () => {
      await running
    },
  }
}

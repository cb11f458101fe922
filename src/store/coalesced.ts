// A piece of background work asked for often and run at most once at a time (postgres.ts: the
// notification after a write).

/**
 * `send` starts `work` unless it is already running; then it runs once more when the current run
 * ends, for whatever asked meanwhile. `settled` waits for the runs asked for so far.
 */
export function coalesced(work: () => Promise<void>, onError: (error: unknown) => void) {
  let running: Promise<void> | undefined
  let again = false
  const run = async () => {
    do {
      again = false
      await work().catch(onError)
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

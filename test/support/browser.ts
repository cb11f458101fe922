// Debian's Chromium, headless, driven by playwright-core (which never downloads a browser of its
// own), for the browser tests. Outside CI a test skips, with a line saying why, when Chromium or
// playwright-core is missing; in CI (CI=true) it must run: a silent skip there would be a false
// green.
import { existsSync } from 'node:fs'

export type { Browser, Page } from 'playwright-core'
export type Chromium = typeof import('playwright-core').chromium

export const executablePath = '/usr/bin/chromium'

/** Chromium to launch, or undefined (with a note on standard error) when `what` must skip. */
export async function loadChromium(what: string): Promise<Chromium | undefined> {
  const chromium = await find()
  if (typeof chromium !== 'string') return chromium
  if (process.env.CI === 'true') throw new Error(`CI=true but ${chromium}`)
  process.stderr.write(`note: ${what} is skipped: ${chromium}\n`)
  return undefined
}

async function find(): Promise<Chromium | string> {
  if (!existsSync(executablePath)) return `${executablePath} is missing (apt-get install chromium)`
  try {
    // Loaded only when a browser test runs.
    const specifier = 'playwright-core'
    return ((await import(specifier)) as { chromium: Chromium }).chromium
  } catch {
    return 'playwright-core is not installed (npm ci)'
  }
}

// The HTML view over HTTPS in Chromium: the browser settles on HTTP/2 by ALPN, takes compressed
// pages, and the view works as over HTTP/1.1 (its assets load, its links lead on, no console
// error). Skips outside CI when Chromium or playwright-core is missing (test/support/browser.ts).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Browser, executablePath, loadChromium } from '../support/browser.ts'
import { makeCertificate } from '../support/certificates.ts'
import { startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const chromium = await loadChromium('the browser test of the HTML view over HTTPS')
const [sqlite] = storeTargets

describe('the HTML view over HTTPS (HTTP/2) in a browser', { skip: !chromium }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'ers-browser-tls-'))
  let service: TestService
  let browser: Browser
  const problems: string[] = []

  before(async () => {
    if (!chromium || !sqlite) return
    const certificate = makeCertificate(dir)
    service = await startService(sqlite, { tlsCert: certificate.cert, tlsKey: certificate.key })
    const location = await service.store.createLocation({ name: 'Town Hall', address: '1 Market Square' })
    for (let i = 1; i <= 12; i++) {
      await service.store.createEvent({
        title: `Secure event ${String(i).padStart(2, '0')}`,
        date: Date.UTC(2027, 0, i, 18),
        locationId: location.id,
      })
    }
    browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox'] })
  })

  after(async () => {
    await browser?.close()
    await service?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('loads the list over h2, compressed, and follows a link to an event', async () => {
    // The certificate is the test's own: the browser is told to take it.
    const context = await browser.newContext({ ignoreHTTPSErrors: true })
    const page = await context.newPage()
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${page.url()}: ${message.text()}`)
    })
    page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`))
    const assets: string[] = []
    page.on('response', (response) => {
      if (response.url().includes('/assets/')) assets.push(`${response.status()} ${response.url()}`)
    })
    const response = await page.goto(`https://localhost:${service.port}/events`)
    assert.equal(response?.status(), 200)
    assert.match((await response?.allHeaders())?.['content-encoding'] ?? '', /^(br|gzip)$/)
    const protocol = await page.evaluate(
      () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).nextHopProtocol,
    )
    assert.equal(protocol, 'h2')
    assert.ok((await page.content()).includes('Secure event 01'))
    await page.getByRole('link', { name: 'Secure event 01' }).first().click()
    await page.waitForURL(/\/events\/\d+$/)
    assert.ok((await page.content()).includes('Town Hall'))
    assert.ok(assets.length > 0 && assets.every((line) => line.startsWith('200 ')), assets.join('\n'))
    assert.deepEqual(problems, [])
    await context.close()
  })
})

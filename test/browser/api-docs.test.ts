// GET /docs in a real browser: Debian's Chromium, headless, driven by playwright-core. The page
// renders every path of the OpenAPI document, logs no error, and asks no other host for anything
// (no CDN, no validator, no web font): directly, and through nginx under a path prefix. A
// screenshot is left in test-artifacts/. Outside CI the test skips, with a line saying why, when
// Chromium or playwright-core is missing; in CI (CI=true) it must run.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Browser, executablePath, loadChromium } from '../support/browser.ts'
import { type Nginx, nginxSkipReason, startNginx } from '../support/nginx.ts'
import { startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const artifacts = resolve(import.meta.dirname, '../../test-artifacts')
const chromium = await loadChromium('the browser test of /docs')

const [sqlite] = storeTargets
describe('the API reference page, /docs, in a browser', { skip: !chromium }, () => {
  let service: TestService
  let browser: Browser
  let paths: string[]

  before(async () => {
    if (!chromium || !sqlite) return
    // Trusting the local proxy, so that the page under a prefix names that prefix as its server.
    service = await startService(sqlite, { trustProxy: '127.0.0.1' })
    paths = Object.keys((await service.request('GET', '/openapi.json')).json().paths)
    browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox'] })
  })

  after(async () => {
    await browser?.close()
    await service?.close()
  })

  /** Opens `url`, waits for Swagger UI to list the operations, and returns what went wrong. */
  async function open(url: string, screenshot: string) {
    const page = await browser.newPage()
    const origin = new URL(url).host
    const elsewhere: string[] = []
    const errors: string[] = []
    const requested: string[] = []
    page.on('request', (request) => {
      requested.push(new URL(request.url()).pathname)
      const target = new URL(request.url())
      // data: URIs (the logo) go nowhere.
      if (target.protocol !== 'data:' && target.host !== origin) elsewhere.push(request.url())
    })
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    page.on('pageerror', (error) => errors.push(error.message))
    const started = Date.now()
    await page.goto(url)
    await page.waitForSelector('.swagger-ui .information-container', { state: 'visible', timeout: 30_000 })
    const renderedMs = Date.now() - started
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 })
    const top = await page.evaluate(() => ({
      topbar: document.querySelectorAll('.topbar').length,
      title: document.querySelector('.information-container .title')?.textContent ?? '',
      text: document.body.innerText,
    }))
    const shown = await page.evaluate(() =>
      [...document.querySelectorAll('.opblock-summary-path')].map((e) => e.getAttribute('data-path')),
    )
    const server = await page.evaluate(() => document.querySelector('.servers select')?.textContent ?? '')
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, screenshot), fullPage: true })
    await page.close()
    return { shown: new Set(shown), elsewhere, errors, server, requested, renderedMs, top }
  }

  it('lists every path of the document, with no console error and no request to another host', async () => {
    const { shown, elsewhere, errors } = await open(`${service.baseUrl}/docs`, 'api-docs.png')
    for (const path of paths) assert.ok(shown.has(path), `${path} is listed`)
    assert.deepEqual(elsewhere, [], 'every request stays on the service')
    assert.deepEqual(errors, [], 'no console errors')
  })

  it("shows the service's name, without Fastify's top bar and its Explore box", async (t) => {
    const { top, renderedMs } = await open(`${service.baseUrl}/docs`, 'api-docs-top.png')
    t.diagnostic(`the first heading showed after ${renderedMs} ms`)
    assert.equal(top.topbar, 0, 'no top bar (its logo and Explore box)')
    assert.doesNotMatch(top.text, /Explore/)
    assert.match(top.title, /^Event Resource Service/)
  })

  it('renders from the document inlined in the page: nothing fetches /docs/json', async (t) => {
    const { requested, renderedMs, shown } = await open(`${service.baseUrl}/docs`, 'api-docs-inlined.png')
    t.diagnostic(`the first heading showed after ${renderedMs} ms`)
    assert.ok(shown.size > 0)
    assert.deepEqual(
      requested.filter((path) => /\/docs\/(json|yaml)$|openapi\.json$/.test(path)),
      [],
      `the requests were: ${requested.join(' ')}`,
    )
  })

  it('works behind a proxy that adds a path prefix', { skip: nginxSkipReason }, async () => {
    let nginx: Nginx | undefined
    try {
      nginx = await startNginx([{ prefix: '/api', upstreamPort: service.port }])
      const { shown, elsewhere, errors, server } = await open(
        `${nginx.origin}/api/docs`,
        'api-docs-prefixed.png',
      )
      for (const path of paths) assert.ok(shown.has(path), `${path} is listed`)
      assert.deepEqual(elsewhere, [], 'every request stays on the proxy')
      assert.deepEqual(errors, [], 'no console errors')
      assert.match(server, /\/api\//, 'the server to try requests on is the prefixed base')
    } finally {
      await nginx?.stop()
    }
  })
})

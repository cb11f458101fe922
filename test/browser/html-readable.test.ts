// The HTML view in Debian's headless Chromium, for what a new user missed (issue 31): the edit
// form moves an event to another location (a merge patch of location_id), a delete asks first in
// the page's own dialog, lists name each event's location, dates read as words with the instant in
// <time datetime>, and /rel/… tables never break a field's name. Every page loads without a
// console error (a Content-Security-Policy violation is one). Screenshots go to test-artifacts/.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { type Browser, executablePath, loadChromium, type Page } from '../support/browser.ts'
import { editor, startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const artifacts = 'test-artifacts'
const chromium = await loadChromium('the browser test of the HTML view')

const [sqlite] = storeTargets
describe('the HTML view in a browser: moving, confirming, naming, dates', { skip: !chromium }, () => {
  let service: TestService
  let browser: Browser
  let hall: number
  let pavilion: number
  const problems: string[] = []

  before(async () => {
    if (!chromium || !sqlite) return
    mkdirSync(artifacts, { recursive: true })
    service = await startService(sqlite)
    hall = (await service.store.createLocation({ name: 'Town Hall', address: '1 Market Square' })).id
    pavilion = (await service.store.createLocation({ name: 'Riverside Pavilion', address: '12 Quay Street' }))
      .id
    browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox'] })
  })

  after(async () => {
    await browser?.close()
    await service?.close()
  })

  async function open(path: string, viewport?: { width: number; height: number }): Promise<Page> {
    const page = await browser.newPage(viewport && { viewport })
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${page.url()}: ${message.text()}`)
    })
    page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`))
    await page.goto(`${service.baseUrl}${path}`)
    return page
  }

  async function credentials(page: Page) {
    await page.getByLabel('User name').fill(editor.user)
    await page.getByLabel('Password').fill(editor.password)
  }

  const status = (page: Page, text: string | RegExp) =>
    page.locator('#status').filter({ hasText: text }).waitFor({ timeout: 10_000 })

  const newEvent = async (title: string, date = Date.UTC(2026, 11, 4, 19, 30), locationId = hall) =>
    (await service.store.createEvent({ title, date, locationId })).id

  it("moves an event with the edit form's select of locations: a merge patch of location_id alone", async () => {
    const id = await newEvent('Moving concert')
    const page = await open(`/events/${id}`)
    const sent: { method: string; type: string | undefined; body: string | null }[] = []
    page.on('request', (request) => {
      if (request.url().endsWith(`/events/${id}`) && request.method() !== 'GET') {
        sent.push({
          method: request.method(),
          type: request.headers()['content-type'],
          body: request.postData(),
        })
      }
    })
    const select = page.getByLabel('Location', { exact: true })
    assert.equal(await select.evaluate((e) => e.tagName), 'SELECT')
    assert.equal(await select.inputValue(), String(hall), 'the current location is chosen')
    await credentials(page)
    await select.selectOption({ label: 'Riverside Pavilion' })
    await page.getByRole('button', { name: 'Save' }).click()
    await status(page, 'Saved')
    assert.deepEqual(sent, [
      {
        method: 'PATCH',
        type: 'application/merge-patch+json',
        body: JSON.stringify({ location_id: pavilion }),
      },
    ])
    const event = (await service.request('GET', `/events/${id}`)).json()
    const location = event.links.find((l: { rel: string }) => l.rel === '/rel/location')
    assert.equal(location.uri, `/locations/${pavilion}`, 'GET over HTTP shows the new location')
    assert.equal(event.title, 'Moving concert', 'nothing else changed')
    await page.locator('[data-location="address"]').filter({ hasText: '12 Quay Street' }).waitFor()
    const named = page.locator('[data-location="name"]')
    assert.equal(await named.textContent(), 'Riverside Pavilion', 'the page names the new location')
    assert.match((await named.getAttribute('href')) ?? '', new RegExp(`/locations/${pavilion}$`))
    await page.screenshot({ path: `${artifacts}/html-event-moved.png`, fullPage: true })
    // From the new state on: a title edit sends the title alone.
    await page.locator('#edit-title').fill('Moved concert')
    await page.getByRole('button', { name: 'Save' }).click()
    await status(page, 'Saved')
    assert.equal(sent[1]?.body, JSON.stringify({ title: 'Moved concert' }))
    await page.close()
  })

  it("asks before deleting, in the page's own dialog: keeping leaves the event, confirming deletes it", async () => {
    const id = await newEvent('Maybe cancelled')
    const page = await open(`/events/${id}`)
    const deletes: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'DELETE') deletes.push(request.url())
    })
    let nativeDialogs = 0
    page.on('dialog', async (dialog) => {
      nativeDialogs++
      await dialog.dismiss()
    })
    await credentials(page)
    const dialog = page.locator('dialog[data-confirm]')
    await page.getByRole('button', { name: 'Delete this event' }).click()
    await dialog.waitFor({ state: 'visible' })
    assert.match((await dialog.textContent()) ?? '', /Delete the event “Maybe cancelled”\?/)
    await page.screenshot({ path: `${artifacts}/html-event-confirm-delete.png`, fullPage: true })
    await page.getByRole('button', { name: 'No, keep it' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await status(page, 'Nothing was deleted')
    // Escape keeps it too.
    await page.getByRole('button', { name: 'Delete this event' }).click()
    await dialog.waitFor({ state: 'visible' })
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    assert.deepEqual(deletes, [], 'nothing was sent')
    assert.equal((await service.request('GET', `/events/${id}`)).status, 200, 'the event is still there')
    await page.getByRole('button', { name: 'Delete this event' }).click()
    await page.getByRole('button', { name: 'Yes, delete it' }).click()
    await status(page, 'Deleted')
    assert.equal(deletes.length, 1)
    assert.equal((await service.request('GET', `/events/${id}`)).status, 404)
    assert.equal(nativeDialogs, 0, 'no window.confirm')
    await page.close()
  })

  it('names each listed event’s location, and shows dates readably with the instant in <time datetime>', async () => {
    const here = (await service.store.createLocation({ name: 'Old Mill', address: '5 Weir Lane' })).id
    await newEvent('Listed at the mill', Date.UTC(2026, 11, 4, 19, 30), here)
    await newEvent('Listed on the river', Date.UTC(2026, 11, 5, 8, 5, 30), pavilion)
    const page = await open('/events?q=Listed')
    const rows = page.locator('tbody tr')
    assert.equal(await rows.count(), 2)
    const cells = (n: number) => rows.nth(n).locator('td')
    assert.equal(await cells(0).nth(2).textContent(), 'Old Mill')
    assert.equal(await cells(1).nth(2).textContent(), 'Riverside Pavilion')
    assert.doesNotMatch((await page.locator('tbody').textContent()) ?? '', /Location \d/)
    const time = (n: number) => cells(n).nth(1).locator('time')
    assert.equal(await time(0).getAttribute('datetime'), '2026-12-04T19:30:00Z')
    assert.equal(await time(0).textContent(), 'Fri 4 Dec 2026, 19:30 UTC')
    assert.equal(await time(1).getAttribute('datetime'), '2026-12-05T08:05:30Z')
    assert.equal(await time(1).textContent(), 'Sat 5 Dec 2026, 08:05:30 UTC')
    await page.screenshot({ path: `${artifacts}/html-events-named.png`, fullPage: true })
    await page.getByRole('link', { name: 'Listed at the mill' }).click()
    await page.waitForURL(/\/events\/\d+$/)
    const date = page.locator('time[data-field="date"]')
    assert.equal(await date.textContent(), 'Fri 4 Dec 2026, 19:30 UTC')
    assert.equal(await date.getAttribute('datetime'), '2026-12-04T19:30:00Z')
    await page.close()
  })

  it('keeps each field name of /rel/event whole, on a narrow screen too', async () => {
    for (const width of [1280, 480]) {
      const page = await open('/rel/event', { width, height: 800 })
      const names = page.locator('th[scope="row"] code')
      assert.ok((await names.count()) >= 4)
      const broken = await names.evaluateAll((codes) =>
        codes.filter((code) => code.getClientRects().length > 1).map((code) => code.textContent),
      )
      assert.deepEqual(broken, [], `at ${width} px no name wraps inside itself`)
      await page.screenshot({ path: `${artifacts}/html-rel-event-${width}.png`, fullPage: true })
      await page.close()
    }
  })

  it('loaded every page without a console error', () => {
    assert.deepEqual(problems, [])
  })
})

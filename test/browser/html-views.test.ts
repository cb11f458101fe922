// The HTML view in a real browser: Debian's Chromium, headless, driven by playwright-core (which
// never downloads a browser of its own). A person follows links, pages, and edits, creates and
// deletes events through the forms with credentials typed into the page; every page must load
// without a console error (a Content-Security-Policy violation is one) and ask no other host for
// anything. Outside CI the test skips, with a line saying why, when Chromium or playwright-core is
// missing; in CI (CI=true) it must run. Screenshots go to test-artifacts/.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { type Browser, executablePath, loadChromium, type Page } from '../support/browser.ts'
import { editor, startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const artifacts = 'test-artifacts'
const chromium = await loadChromium('the browser test of the HTML view')

const [sqlite] = storeTargets
describe('the HTML view in a browser', { skip: !chromium }, () => {
  let service: TestService
  let browser: Browser
  let locationId: number
  /** Every console error and failed page, with the page's URL. */
  const problems: string[] = []
  /** Requests to any host but the service's. */
  const elsewhere: string[] = []
  const visited = new Set<string>()
  /** Statuses a test provokes on purpose: Chromium logs each such fetch answer as a console error. */
  let expectedStatuses: number[] = []

  before(async () => {
    if (!chromium || !sqlite) return
    mkdirSync(artifacts, { recursive: true })
    service = await startService(sqlite)
    locationId = (await service.store.createLocation({ name: 'Town Hall', address: '1 Market Square' })).id
    for (let i = 1; i <= 12; i++) {
      await service.store.createEvent({
        title: `Browsed event ${String(i).padStart(2, '0')}`,
        date: Date.UTC(2027, 0, i, 18),
        locationId,
      })
    }
    browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox'] })
  })

  after(async () => {
    await browser?.close()
    await service?.close()
  })

  async function open(path: string): Promise<Page> {
    const page = await browser.newPage()
    const host = new URL(service.baseUrl).host
    page.on('console', (message) => {
      if (message.type() !== 'error') return
      const status = /status of (\d{3})/.exec(message.text())?.[1]
      if (status && expectedStatuses.includes(Number(status))) return
      problems.push(`${page.url()}: ${message.text()}`)
    })
    page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`))
    page.on('request', (request) => {
      visited.add(request.url())
      if (new URL(request.url()).host !== host) elsewhere.push(request.url())
    })
    await page.goto(`${service.baseUrl}${path}`)
    return page
  }

  async function credentials(page: Page, password = editor.password) {
    await page.getByLabel('User name').fill(editor.user)
    await page.getByLabel('Password').fill(password)
  }

  const status = (page: Page, text: string | RegExp) =>
    page.locator('#status').filter({ hasText: text }).waitFor({ timeout: 10_000 })

  async function eventId(title: string): Promise<number> {
    const res = await service.request('GET', `/events?q=${encodeURIComponent(title)}`)
    return res.json().events[0].id
  }

  it('opens /events, follows a link to an event, and pages forward', async () => {
    const page = await open('/events?per_page=5')
    assert.equal(await page.title(), 'Events — Event Resource Service')
    assert.equal(await page.locator('tbody tr').count(), 5)
    await page.getByRole('link', { name: 'Next page (2)' }).click()
    await page.waitForURL(/page=2&per_page=5$/)
    assert.equal(
      await page.locator('tbody tr').first().locator('a').first().textContent(),
      'Browsed event 06',
    )
    await page.screenshot({ path: `${artifacts}/html-events-page-2.png`, fullPage: true })
    await page.getByRole('link', { name: 'Browsed event 07' }).click()
    await page.waitForURL(/\/events\/\d+$/)
    assert.equal(await page.locator('h1').textContent(), 'Browsed event 07')
    assert.equal(
      await page.getByRole('link', { name: 'Town Hall' }).count(),
      1,
      'the event names its location',
    )
    await page.screenshot({ path: `${artifacts}/html-event.png`, fullPage: true })
    await page.close()
  })

  it('edits an event through the form with credentials and shows the new state', async () => {
    const id = await eventId('Browsed event 01')
    const page = await open(`/events/${id}`)
    await credentials(page)
    await page.locator('#edit-title').fill('Renamed in a browser')
    await page.getByRole('button', { name: 'Save' }).click()
    await status(page, 'Saved')
    assert.equal(await page.locator('h1').textContent(), 'Renamed in a browser')
    assert.equal(await page.title(), 'Renamed in a browser — Event Resource Service')
    assert.equal((await service.request('GET', `/events/${id}`)).json().title, 'Renamed in a browser')
    // The new ETag is the next If-Match: a second edit from the same page succeeds as well.
    await page.locator('#edit-date').fill('2027-03-01T10:00:00+01:00')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.locator('time[data-field="date"]').filter({ hasText: 'Mon 1 Mar 2027, 09:00 UTC' }).waitFor()
    assert.equal(
      await page.locator('time[data-field="date"]').getAttribute('datetime'),
      '2027-03-01T09:00:00Z',
      'the instant, as the JSON writes it',
    )
    assert.equal((await service.request('GET', `/events/${id}`)).json().date, '2027-03-01T09:00:00Z')
    await page.screenshot({ path: `${artifacts}/html-event-edited.png`, fullPage: true })
    await page.close()
  })

  it('refuses a stale edit in words and offers the current version', async () => {
    expectedStatuses = [412]
    const id = await eventId('Browsed event 02')
    const page = await open(`/events/${id}`)
    const changed = await service.request('PUT', `/events/${id}`, {
      headers: { authorization: service.editorAuth, 'content-type': 'application/json' },
      body: { title: 'Changed over HTTP meanwhile', date: '2027-01-02T18:00:00Z' },
    })
    assert.equal(changed.status, 200, changed.text)
    await credentials(page)
    await page.locator('#edit-title').fill('A stale edit')
    await page.getByRole('button', { name: 'Save' }).click()
    await status(page, /Someone changed this.*412/)
    await page.screenshot({ path: `${artifacts}/html-event-stale.png`, fullPage: true })
    assert.equal((await service.request('GET', `/events/${id}`)).json().title, 'Changed over HTTP meanwhile')
    await page.getByRole('button', { name: 'Load the current version' }).click()
    await status(page, 'This is the current version')
    assert.equal(await page.locator('h1').textContent(), 'Changed over HTTP meanwhile')
    await page.locator('#edit-title').fill('Edited after reloading')
    await page.getByRole('button', { name: 'Save' }).click()
    await status(page, 'Saved')
    assert.equal((await service.request('GET', `/events/${id}`)).json().title, 'Edited after reloading')
    await page.close()
  })

  it('shows each field error beside its field, and refused credentials in words', async () => {
    expectedStatuses = [401, 422]
    const id = await eventId('Browsed event 03')
    const page = await open(`/events/${id}`)
    await credentials(page)
    await page.locator('#edit-title').fill('')
    await page.locator('#edit-date').fill('2027-02-30T00:00:00Z')
    await page.getByRole('button', { name: 'Save' }).click()
    await status(page, 'Nothing was saved')
    assert.notEqual(await page.locator('#edit-title-error').textContent(), '')
    assert.notEqual(await page.locator('#edit-date-error').textContent(), '')
    assert.equal(await page.locator('#edit-date').getAttribute('aria-invalid'), 'true')
    await page.screenshot({ path: `${artifacts}/html-event-invalid.png`, fullPage: true })
    await credentials(page, 'not-the-password')
    await page.locator('#edit-title').fill('Never saved')
    await page.locator('#edit-date').fill('2027-01-03T18:00:00Z')
    await page.getByRole('button', { name: 'Save' }).click()
    await status(page, 'not accepted (401)')
    assert.equal((await service.request('GET', `/events/${id}`)).json().title, 'Browsed event 03')
    await page.close()
  })

  it('creates an event and deletes it through the forms', async () => {
    expectedStatuses = []
    const page = await open('/events')
    await credentials(page)
    await page.locator('#create-title').fill('Made in a browser')
    await page.locator('#create-date').fill('2027-05-01T19:00:00Z')
    await page.locator('#create-location_id').selectOption(String(locationId))
    await page.getByRole('button', { name: 'Add the event' }).click()
    await status(page, 'Created')
    await page.locator('#status a').click()
    await page.waitForURL(/\/events\/\d+$/)
    const id = Number(new URL(page.url()).pathname.split('/').pop())
    assert.equal(await page.locator('h1').textContent(), 'Made in a browser')
    await credentials(page)
    await page.getByRole('button', { name: 'Delete this event' }).click()
    await page.getByRole('button', { name: 'Yes, delete it' }).click()
    await status(page, 'Deleted')
    await page.screenshot({ path: `${artifacts}/html-event-deleted.png`, fullPage: true })
    assert.equal((await service.request('GET', `/events/${id}`)).status, 404)
    await page.close()
  })

  it('edits a location, and says in words why one with events cannot be deleted', async () => {
    expectedStatuses = [409]
    const page = await open('/locations')
    await page.getByRole('link', { name: 'Town Hall' }).click()
    await page.waitForURL(/\/locations\/\d+$/)
    await credentials(page)
    await page.locator('#edit-name').fill('Old Town Hall')
    await page.getByRole('button', { name: 'Save' }).click()
    await status(page, 'Saved')
    assert.equal(await page.locator('h1').textContent(), 'Old Town Hall')
    await page.getByRole('button', { name: 'Delete this location' }).click()
    await page.getByRole('button', { name: 'Yes, delete it' }).click()
    await status(page, /409 Conflict.*events still take place/)
    await page.screenshot({ path: `${artifacts}/html-location-in-use.png`, fullPage: true })
    assert.equal((await service.request('GET', `/locations/${locationId}`)).json().name, 'Old Town Hall')
    await page.getByRole('link', { name: 'The events at this location' }).click()
    await page.waitForURL(new RegExp(`/events\\?location_id=${locationId}$`))
    assert.match((await page.locator('main > p').first().textContent()) ?? '', /match the filter/)
    await page.close()
  })

  it('lets the edit form be reached and sent with the keyboard alone', async () => {
    expectedStatuses = []
    const id = await eventId('Browsed event 04')
    const page = await open(`/events/${id}`)
    const focused = () =>
      page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent)
    await page.keyboard.press('Tab')
    assert.equal(await focused(), 'Skip to the content', 'the skip link comes first')
    const reach = async (target: string) => {
      for (let i = 0; i < 40 && (await focused()) !== target; i++) await page.keyboard.press('Tab')
      assert.equal(await focused(), target, `Tab reaches #${target}`)
    }
    await reach('username')
    await page.keyboard.type(editor.user)
    await reach('password')
    await page.keyboard.type(editor.password)
    await reach('edit-title')
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.type('Typed with the keyboard')
    await page.keyboard.press('Enter')
    await status(page, 'Saved')
    assert.equal((await service.request('GET', `/events/${id}`)).json().title, 'Typed with the keyboard')
    await page.close()
  })

  it('filters with the GET form, leaving empty fields out of the query', async () => {
    const page = await open('/events')
    await page.getByLabel('Title contains').fill('event 1')
    await page.getByRole('button', { name: 'Find' }).click()
    await page.waitForURL(/\/events\?q=event\+1&per_page=20$/)
    assert.equal(await page.locator('tbody tr').count(), 3, 'events 10, 11 and 12')
    await page.close()
  })

  it('shows the relation docs and the entry point', async () => {
    const page = await open('/')
    await page.getByRole('link', { name: '/rel/events' }).click()
    await page.waitForURL(/\/rel\/events$/)
    assert.match((await page.locator('h1').textContent()) ?? '', /Link relation/)
    await page.screenshot({ path: `${artifacts}/html-relation-events.png`, fullPage: true })
    await page.close()
  })

  it('loaded every page without a console error and asked no other host for anything', () => {
    assert.ok(visited.size > 3, `pages were visited: ${[...visited].join(' ')}`)
    assert.deepEqual(problems, [])
    assert.deepEqual(elsewhere, [])
  })
})

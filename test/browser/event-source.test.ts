// A real browser's EventSource reads the change feed: Debian's Chromium, headless, driven by
// playwright-core (which never downloads a browser of its own). Outside CI the test skips, with a
// line saying why, when Chromium or playwright-core is missing; in CI (CI=true) it must run.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Browser, executablePath, loadChromium, type Page } from '../support/browser.ts'
import { freePort } from '../support/ports.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { basic, send, startService, type TestService } from '../support/service.ts'
import { storeTargets } from '../support/stores.ts'

const chromium = await loadChromium('the browser test of EventSource')

interface Received {
  type: string
  lastEventId: string
  data: { id: number; title?: string }
}

declare global {
  interface Window {
    received: Received[]
    feed: EventSource
    /** What the EventSource went through: [ms since it was made, event, readyState]. */
    states: [number, string, number][]
  }
}

const [sqlite] = storeTargets
describe('a browser’s EventSource on the change feed', { skip: !chromium }, () => {
  let service: TestService
  let browser: Browser
  let page: Page

  before(async () => {
    if (!chromium || !sqlite) return
    service = await startService(sqlite)
    browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox'] })
    page = await browser.newPage()
    // Any page of the service's own origin; EventSource then needs no CORS.
    await page.goto(`${service.baseUrl}/rel/event`)
  })

  after(async () => {
    await browser?.close()
    await service?.close()
  })

  it('receives created, updated and deleted events with their ids, as a browser reads them', async () => {
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          window.received = []
          window.feed = new EventSource('/events')
          for (const type of ['created', 'updated', 'deleted']) {
            window.feed.addEventListener(type, (event) => {
              const message = event as MessageEvent<string>
              window.received.push({ type, lastEventId: message.lastEventId, data: JSON.parse(message.data) })
            })
          }
          window.feed.onopen = () => resolve()
          window.feed.onerror = () => reject(new Error('EventSource failed to open'))
        }),
      undefined,
    )
    const location = await service.store.createLocation({ name: 'Hall', address: '1 Square' })
    const headers = { authorization: service.editorAuth, 'content-type': 'application/json' }
    const created = await service.request('POST', '/events', {
      headers,
      body: { title: 'Seen by a browser', date: '2027-06-01T18:00:00Z', location_id: location.id },
    })
    assert.equal(created.status, 201, created.text)
    const id = created.json().id as number
    const put = await service.request('PUT', `/events/${id}`, {
      headers,
      body: { title: 'Changed', date: '2027-06-01T18:00:00Z' },
    })
    assert.equal(put.status, 200)
    assert.equal((await service.request('DELETE', `/events/${id}`, { headers })).status, 204)

    await page.waitForFunction((n) => window.received.length >= n, 3, { timeout: 5_000 })
    const received = await page.evaluate(() => window.received, undefined)
    assert.deepEqual(
      received.map((r) => [r.type, r.data.id]),
      [
        ['created', id],
        ['updated', id],
        ['deleted', id],
      ],
    )
    assert.equal(received[1]?.data.title, 'Changed')
    const ids = received.map((r) => Number(r.lastEventId))
    assert.deepEqual(ids, [ids[0], (ids[0] as number) + 1, (ids[0] as number) + 2])
    assert.equal(await page.evaluate(() => window.feed.readyState, undefined), 1)
  })
})

describe('a browser’s EventSource across a server restart', { skip: !chromium }, () => {
  let dir: string
  let env: Record<string, string>
  let server: ServerProcess | undefined
  let browser: Browser
  const admin = basic('admin', 'admin-password-1')

  before(async () => {
    if (!chromium) return
    dir = mkdtempSync(join(tmpdir(), 'ers-browser-'))
    env = {
      DATABASE_URL: `sqlite:${join(dir, 'events.db')}`,
      ADMIN_PASSWORD: 'admin-password-1',
      PORT: String(await freePort()),
    }
    server = await startServerProcess(env)
    browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox'] })
  })

  after(async () => {
    await browser?.close()
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  it('reconnects by itself after SIGTERM and, with Last-Event-ID, gets exactly the change it missed', async () => {
    const running = () => server as ServerProcess
    const page = await browser.newPage()
    await page.goto(`${running().baseUrl}/rel/event`)
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          window.received = []
          window.states = []
          const made = Date.now()
          window.feed = new EventSource('/events')
          // reset too: it would say the server no longer had the missed change.
          for (const type of ['created', 'deleted', 'reset']) {
            window.feed.addEventListener(type, (event) => {
              const message = event as MessageEvent<string>
              window.received.push({ type, lastEventId: message.lastEventId, data: JSON.parse(message.data) })
            })
          }
          for (const type of ['open', 'error']) {
            window.feed.addEventListener(type, () =>
              window.states.push([Date.now() - made, type, window.feed.readyState]),
            )
          }
          window.feed.addEventListener('open', () => resolve(), { once: true })
        }),
      undefined,
    )
    const write = (method: string, path: string, body?: unknown) =>
      send(running().baseUrl, method, path, {
        headers: { authorization: admin, 'content-type': 'application/json' },
        ...(body !== undefined && { body }),
      })
    const created = await write('POST', '/events', {
      title: 'Before the restart',
      date: '2027-06-01T18:00:00Z',
      location_id: 1,
    })
    assert.equal(created.status, 201, created.text)
    await page.waitForFunction((n) => window.received.length >= n, 1, { timeout: 5_000 })

    // The feed ends cleanly on SIGTERM; the change below is made while no server runs a feed.
    const first = running()
    first.child.kill('SIGTERM')
    assert.equal((await first.exited).code, 0)
    server = await startServerProcess(env)
    const deleted = await write('DELETE', `/events/${created.json().id}`)
    assert.equal(deleted.status, 204)

    // It reconnects every 2 s (the feed's retry field) until the new server answers; a loaded
    // machine can take a while to start one, so the wait is generous. On failure the message says
    // what the page went through and how the new server answered the feed.
    await page
      .waitForFunction((n) => window.received.length >= n, 2, { timeout: 30_000 })
      .catch(async (error) => {
        const seen = await page.evaluate(
          () => ({ states: window.states, received: window.received }),
          undefined,
        )
        // Each server's log of /events (a feed is logged when it ends or is refused).
        const eventsLog = (server: ServerProcess) =>
          server
            .output()
            .split('\n')
            .filter((line) => line.includes('"url":"/events"'))
            .join('\n')
        throw new Error(
          `${(error as Error).message}\npage: ${JSON.stringify(seen)}\n` +
            `first server, /events:\n${eventsLog(first)}\nsecond server, /events:\n${eventsLog(running())}`,
        )
      })
    const received = await page.evaluate(() => window.received, undefined)
    assert.deepEqual(
      received.map((r) => [r.type, r.data.id]),
      [
        ['created', created.json().id],
        ['deleted', created.json().id],
      ],
    )
    assert.equal(Number(received[1]?.lastEventId), Number(received[0]?.lastEventId) + 1)
    running().child.kill('SIGTERM')
    await running().exited
  })
})

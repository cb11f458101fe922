// The browsable HTML view (CONTRACT.md §1): a browser's Accept gets HTML of the same resources,
// everything else keeps the JSON; the pages escape what they show, carry their own ETag (304 works),
// a Content-Security-Policy, paging links equal to the Link field's, and load nothing from elsewhere.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { assertProblem, contractService, jsonHeaders, parseLinkHeader, types } from '../support/contract.ts'
import { storeTargets } from '../support/stores.ts'

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
const browser = { accept: browserAccept }
const htmlType = 'text/html; charset=utf-8'

const entities: Record<string, string> = {
  '&quot;': '"',
  '&#39;': "'",
  '&lt;': '<',
  '&gt;': '>',
  '&amp;': '&',
}
const decode = (text: string) =>
  text.replace(/&(?:quot|#39|lt|gt|amp);/g, (entity) => entities[entity] as string)

/** The attributes of every element `tag` of a page, as name → value, entities decoded. */
function elements(page: string, tag: string): Record<string, string>[] {
  return [...page.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, 'gi'))].map((m) =>
    Object.fromEntries(
      [...(m[1] ?? '').matchAll(/([\w:-]+)(?:="([^"]*)")?/g)].map((a) => [
        (a[1] as string).toLowerCase(),
        decode(a[2] ?? ''),
      ]),
    ),
  )
}

const hrefs = (page: string) => elements(page, 'a').map((a) => a.href as string)

for (const target of storeTargets) {
  describe(`[${target.name}] HTML views`, () => {
    const ctx = contractService(target)
    let eventId: number
    let pages: string[]
    before(async () => {
      eventId = (await ctx.createEvent({ title: 'Concert in the park' })).id
      pages = ['/', '/events', `/events/${eventId}`, '/locations', `/locations/${ctx.locationId}`]
    })

    describe('negotiation', () => {
      it("answers a browser's Accept with an HTML page of the same resource", async () => {
        for (const path of pages) {
          for (const accept of [browserAccept, 'text/html']) {
            const res = await ctx.http('GET', path, { headers: { accept } })
            assert.equal(res.status, 200, `GET ${path} Accept: ${accept} → ${res.text}`)
            assert.equal(res.header('content-type'), htmlType, `GET ${path}`)
            assert.match(res.text, /^<!doctype html>\n<html lang="en">/)
            assert.match(res.text, /<title>[^<]+<\/title>/)
            for (const landmark of ['<header>', '<nav ', '<main '])
              assert.ok(res.text.includes(landmark), landmark)
          }
        }
      })

      it('keeps the JSON for no Accept, */* and application/json', async () => {
        const vendor: Record<string, string> = {
          '/': types.api,
          '/events': types.events,
          [`/events/${eventId}`]: types.event,
          '/locations': types.locations,
          [`/locations/${ctx.locationId}`]: types.location,
        }
        for (const path of pages) {
          for (const headers of [{}, { accept: '*/*' }, { accept: 'application/json' }] as Record<
            string,
            string
          >[]) {
            const res = await ctx.http('GET', path, { headers })
            assert.equal(res.status, 200)
            assert.equal(res.header('content-type'), vendor[path], `GET ${path} ${JSON.stringify(headers)}`)
            assert.doesNotThrow(() => res.json())
            assert.equal(res.header('content-security-policy'), undefined, 'the policy is for pages')
          }
        }
      })

      it('lists text/html among the types on offer in a 406', async () => {
        for (const path of pages) {
          const res = await ctx.http('GET', path, { headers: { accept: 'application/xml' } })
          assertProblem(res, 406)
          assert.ok(res.json().detail.includes('text/html'), `406 for ${path}: ${res.text}`)
        }
      })

      it('answers errors for a browser as problems, never a server error: unknown, non-numeric and missing ids', async () => {
        for (const path of ['/events/abc', '/events/0', '/events/987654', '/locations/x', '/no/such/page']) {
          assertProblem(await ctx.http('GET', path, { headers: browser }), 404)
        }
      })
    })

    describe('what the pages show', () => {
      it('escapes titles, names and addresses: markup and quotes appear as text', async () => {
        const title = `<script>alert(1)</script> & "double" 'single'`
        const locationId = await ctx.newLocation('<b>Hall</b> & "Co"', "<img src=x onerror='alert(2)'>")
        const { id } = await ctx.createEvent({ title, location_id: locationId })
        const escaped = '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;double&quot; &#39;single&#39;'
        for (const path of [`/events/${id}`, `/events?location_id=${locationId}`]) {
          const page = (await ctx.http('GET', path, { headers: browser })).text
          assert.ok(page.includes(escaped), `${path} shows the title as text`)
          assert.ok(!page.includes('<script>alert'), `${path} has no injected script`)
        }
        for (const path of [`/events/${id}`, `/locations/${locationId}`, '/locations']) {
          const page = (await ctx.http('GET', path, { headers: browser })).text
          assert.ok(page.includes('&lt;b&gt;Hall&lt;/b&gt; &amp; &quot;Co&quot;'), `${path} shows the name`)
          assert.ok(!page.includes('<b>Hall') && !page.includes('<img'), `${path} injects nothing`)
        }
      })

      it('escapes the filter it echoes into the find form and the page links', async () => {
        const q = '"><script>alert(3)</script>'
        const res = await ctx.http('GET', `/events?q=${encodeURIComponent(q)}`, { headers: browser })
        assert.equal(res.status, 200, res.text)
        assert.ok(!res.text.includes('<script>alert'), 'nothing of the query becomes markup')
        const field = elements(res.text, 'input').find((i) => i.id === 'filter-q')
        assert.equal(field?.value, q, 'the form shows the text as it was sent')
        const first = elements(res.text, 'a').find((a) => a.rel === 'first')
        assert.equal(first?.href, parseLinkHeader(res.header('link')).get('first'))
      })

      it("shows an event with its links to follow and its location's name and address", async () => {
        const locationId = await ctx.newLocation('Riverside Pavilion', '12 Quay Street')
        const { id } = await ctx.createEvent({ title: 'Boat race', location_id: locationId })
        const page = (await ctx.http('GET', `/events/${id}`, { headers: browser })).text
        assert.match(page, /<h1[^>]*>Boat race<\/h1>/)
        assert.ok(page.includes('Riverside Pavilion') && page.includes('12 Quay Street'))
        const links = hrefs(page)
        for (const href of [`/events/${id}`, `/locations/${locationId}`, '/rel/event', '/rel/location']) {
          assert.ok(links.includes(href), `the page links to ${href}`)
        }
        assert.ok(page.includes('data-if-match="&quot;v1&quot;"'), "the edit form holds the JSON's ETag")
      })

      it('shows a location with a link to its events, and the entry point with its links', async () => {
        const page = (await ctx.http('GET', `/locations/${ctx.locationId}`, { headers: browser })).text
        assert.ok(hrefs(page).includes(`/events?location_id=${ctx.locationId}`))
        const entry = await ctx.http('GET', '/', { headers: browser })
        for (const uri of parseLinkHeader(entry.header('link')).values()) {
          assert.ok(hrefs(entry.text).includes(uri), `the entry page links to ${uri}`)
        }
      })

      it('gives the collection its total and the same first/prev/next/last as the Link field, filter kept', async () => {
        const locationId = await ctx.newLocation('Paging Hall', '3 Page Road')
        for (let i = 0; i < 5; i++) {
          await ctx.createEvent({
            title: `Paged ${i}`,
            location_id: locationId,
            date: `2027-0${i + 1}-01T00:00:00Z`,
          })
        }
        const path = `/events?location_id=${locationId}&page=3&per_page=2`
        const res = await ctx.http('GET', path, { headers: browser })
        assert.equal(res.status, 200)
        assert.match(res.text, /5 events match the filter/)
        const link = parseLinkHeader(res.header('link'))
        assert.deepEqual([...link.keys()], ['first', 'prev', 'last'])
        const anchors = elements(res.text, 'a').filter((a) => a.rel)
        assert.deepEqual(
          anchors.map((a) => [a.rel, a.href]),
          [...link.entries()],
          'the page links the same pages as the Link field',
        )
        assert.equal(link.get('prev'), `/events?location_id=${locationId}&page=2&per_page=2`)
        const filter = elements(res.text, 'input').find(
          (i) => i.name === 'location_id' && i.id === 'filter-location_id',
        )
        assert.equal(filter?.value, String(locationId), 'the filter form shows the filter')
      })

      it('loads nothing inline and nothing from another host; its assets are served with long caching', async () => {
        for (const path of pages) {
          const page = (await ctx.http('GET', path, { headers: browser })).text
          // Tags only: escaped text may well read "onerror=".
          const tags = [...page.matchAll(/<[^>]*>/g)].join('')
          assert.doesNotMatch(
            tags,
            /<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son\w+=/i,
            `${path}: nothing inline`,
          )
          const loaded = [
            ...elements(page, 'script').map((s) => s.src as string),
            ...elements(page, 'link').map((l) => l.href as string),
          ]
          for (const asset of loaded) {
            assert.match(asset, /^\/assets\/[\w-]+\.(css|js|svg)$/, `${path} loads ${asset} from the service`)
            const res = await ctx.http('GET', asset, { headers: { accept: '*/*' } })
            assert.equal(res.status, 200, asset)
            assert.match(res.header('cache-control') ?? '', /max-age=31536000/)
            const expected = { css: 'text/css', js: 'text/javascript', svg: 'image/svg+xml' }[
              asset.split('.').pop() as 'css'
            ]
            assert.match(res.header('content-type') ?? '', new RegExp(`^${expected.replace('+', '\\+')}`))
          }
        }
      })
    })

    describe('HTTP', () => {
      it('sends a Content-Security-Policy without inline script, and never a cookie', async () => {
        for (const path of pages) {
          const res = await ctx.http('GET', path, { headers: browser })
          const policy = res.header('content-security-policy') ?? ''
          assert.match(policy, /default-src 'self'/)
          assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval/)
        }
      })

      it("gives a page its own ETag, not the JSON's, and 304 for a current copy of either", async () => {
        for (const path of pages.slice(1)) {
          const json = await ctx.http('GET', path)
          const page = await ctx.http('GET', path, { headers: browser })
          const tag = page.header('etag')
          assert.match(tag ?? '', /^"[^"]+"$/, `${path}: a strong ETag`)
          assert.notEqual(tag, json.header('etag'), `${path}: HTML and JSON are two representations`)
          const fresh = await ctx.http('GET', path, {
            headers: { ...browser, 'if-none-match': tag as string },
          })
          assert.equal(fresh.status, 304, path)
          assert.equal(fresh.header('etag'), tag)
          const other = await ctx.http('GET', path, {
            headers: { ...browser, 'if-none-match': json.header('etag') as string },
          })
          assert.equal(other.status, 200, `${path}: the JSON's tag does not match the page`)
          const back = await ctx.http('GET', path, { headers: { 'if-none-match': tag as string } })
          assert.equal(back.status, 200, `${path}: the page's tag does not match the JSON`)
        }
      })

      it('changes the event page and its ETag when the event or its location changes', async () => {
        const locationId = await ctx.newLocation('Before', '1 Street')
        const { id } = await ctx.createEvent({ location_id: locationId })
        const tag = async () => (await ctx.http('GET', `/events/${id}`, { headers: browser })).header('etag')
        const first = await tag()
        const put = await ctx.http('PUT', `/events/${id}`, {
          headers: jsonHeaders(ctx.service.editorAuth),
          body: { title: 'Changed', date: '2027-01-01T00:00:00Z' },
        })
        assert.equal(put.status, 200, put.text)
        const second = await tag()
        assert.notEqual(second, first)
        const renamed = await ctx.http('PATCH', `/locations/${locationId}`, {
          headers: jsonHeaders(ctx.service.editorAuth, types.mergePatch),
          body: { name: 'After' },
        })
        assert.equal(renamed.status, 200, renamed.text)
        assert.notEqual(
          await tag(),
          second,
          "the page names the location: renaming it changes the page's tag",
        )
      })

      it('answers HEAD with the headers of GET and no body', async () => {
        for (const path of pages) {
          const get = await ctx.http('GET', path, { headers: browser })
          const head = await ctx.http('HEAD', path, { headers: browser })
          assert.equal(head.status, 200)
          assert.equal(head.text, '')
          for (const name of ['content-type', 'content-length', 'etag', 'content-security-policy', 'link']) {
            assert.equal(head.header(name), get.header(name), `HEAD ${path}: ${name}`)
          }
        }
      })
    })
  })

  describe(`[${target.name}] HTML views behind a proxy`, () => {
    const ctx = contractService(target, { settings: { trustProxy: 'true' } })

    it('links to the public address, prefix included', async () => {
      const { id } = await ctx.createEvent()
      const res = await ctx.http('GET', `/events/${id}`, {
        headers: {
          ...browser,
          'x-forwarded-proto': 'https',
          'x-forwarded-host': 'events.example',
          'x-forwarded-prefix': '/api',
        },
      })
      assert.equal(res.status, 200)
      const urls = [...hrefs(res.text), ...elements(res.text, 'script').map((s) => s.src as string)]
      assert.ok(urls.includes(`https://events.example/api/events/${id}`), urls.join(' '))
      for (const url of urls.filter((u) => !u.startsWith('#'))) {
        assert.match(url, /^https:\/\/events\.example\/api\//)
      }
    })
  })
}

// The HTML views of /events and /events/<id>: what the JSON says, as a page with its links to
// follow, the filter as a GET form, paging as links, and the write forms.
import { mediaTypes } from '../../contract/media-types.ts'
import { formatDateTime } from '../../domain/dates.ts'
import { versionEtag } from '../../domain/etag.ts'
import { pageRelations } from '../../domain/paging.ts'
import type { Event, Location } from '../../domain/types.ts'
import { eventLinks, paths } from '../links.ts'
import { html } from './escape.ts'
import { type Choice, changeSection, deleteConfirmation, field, selectField, writeForm } from './forms.ts'
import { page, type UrlOf } from './layout.ts'
import { type CollectionView, linkList, pageLinks } from './parts.ts'
import { timeElement } from './readable-date.ts'

const dateHint = 'RFC 3339, for example 2026-12-04T19:30:00Z'

/** The locations a form offers to choose from; undefined when there are too many for a list. */
export type LocationChoices = readonly Choice[] | undefined

export const locationChoice = (location: Location): Choice => ({ value: location.id, label: location.name })

/** Where an event takes place, as a field of a form: a select of the locations, or their id. */
function locationField(formId: string, choices: LocationChoices, value?: number) {
  return choices
    ? selectField(formId, { name: 'location_id', label: 'Location', choices, value })
    : field(formId, { name: 'location_id', label: 'Location id', type: 'number', value })
}

/**
 * A page of events; `locations` names the locations of its events (read in one call for the ids
 * on the page), `choices` are the create form's.
 */
export function eventCollectionPage(
  url: UrlOf,
  view: CollectionView<Event>,
  locations: readonly Location[],
  choices: LocationChoices,
) {
  const names = new Map(locations.map((location) => [location.id, location.name]))
  const { page: current, total, items, parameters } = view
  const chosen = new Map(parameters)
  const count = (n: number) =>
    `${n} ${n === 1 ? 'event' : 'events'}${parameters.length === 0 ? '' : n === 1 ? ' matches the filter' : ' match the filter'}`
  const filterField = (name: string, label: string, hint?: string) =>
    html`<label for="filter-${name}">${label}</label>
<input id="filter-${name}" name="${name}" value="${chosen.get(name) ?? ''}"${hint && html` aria-describedby="filter-${name}-hint"`}>
${hint && html`<p class="hint" id="filter-${name}-hint">${hint}</p>`}`
  const rows = items.map(
    (event) => html`<tr>
<td><a href="${url(paths.event(event.id))}">${event.title}</a></td>
<td>${timeElement(event.date)}</td>
<td><a href="${url(paths.location(event.locationId))}">${names.get(event.locationId) ?? `Location ${event.locationId}`}</a></td>
</tr>`,
  )
  const main = html`<h1>Events</h1>
<p>${count(total)}. Page ${current.page}, ${current.perPage} per page.</p>
<form method="get" action="${url(paths.events)}" role="search" aria-labelledby="filter-heading" data-drop-empty>
<h2 id="filter-heading">Find events</h2>
${filterField('q', 'Title contains')}
${filterField('from', 'From (inclusive)', dateHint)}
${filterField('to', 'To (exclusive)', dateHint)}
${filterField('location_id', 'Location id')}
<input type="hidden" name="per_page" value="${current.perPage}">
<button type="submit">Find</button>
${parameters.length > 0 && html`<a href="${url(paths.events)}">Show all events</a>`}
</form>
${
  items.length === 0
    ? html`<p>No events on this page.</p>`
    : html`<table>
<caption>Events by date</caption>
<thead><tr><th scope="col">Title</th><th scope="col">Date</th><th scope="col">Location</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${pageLinks(url, pageRelations(current, total), (n) => paths.page(n, current.perPage, paths.events, parameters))}
${changeSection(
  'Add an event',
  writeForm({
    id: 'create',
    heading: 'New event',
    method: 'POST',
    action: url(paths.events),
    type: mediaTypes.event,
    accept: mediaTypes.event,
    success: 'created',
    collection: url(paths.events),
    fields: [
      field('create', { name: 'title', label: 'Title', hint: '1–200 characters' }),
      field('create', { name: 'date', label: 'Date', hint: dateHint }),
      locationField('create', choices),
    ],
    submit: 'Add the event',
  }),
)}`
  return page(url, { title: 'Events', path: paths.events, main, forms: true })
}

/**
 * An event and, when it could be read, its location (the page names it); the edit form moves it
 * to one of `choices` (a merge patch of `location_id`, the one request that moves an event).
 */
export function eventPage(
  url: UrlOf,
  event: Event,
  location: Location | undefined,
  choices: LocationChoices,
) {
  const date = formatDateTime(event.date)
  const etag = versionEtag(event.version)
  const self = url(paths.event(event.id))
  // The script puts a new location's name and address here after a move (forms-script.ts).
  const where = html`<a data-location="name" href="${url(paths.location(event.locationId))}">${location?.name ?? `Location ${event.locationId}`}</a><span data-location="address">${location && `, ${location.address}`}</span>`
  const main = html`<h1 data-field="title">${event.title}</h1>
<dl>
<dt>Date</dt><dd>${timeElement(event.date, 'date')}</dd>
<dt>Location</dt><dd>${where}</dd>
<dt>Id</dt><dd>${event.id}</dd>
<dt>ETag</dt><dd><code data-field="etag">${etag}</code> (of the JSON representation)</dd>
</dl>
<h2>Links</h2>
${linkList(url, eventLinks(event))}
${changeSection('Change this event', [
  writeForm({
    id: 'edit',
    heading: 'Edit',
    // A merge patch of what the person changed: PUT replaces title and date but cannot move it.
    method: 'PATCH',
    action: self,
    type: mediaTypes.mergePatch,
    accept: mediaTypes.event,
    ifMatch: etag,
    success: 'updated',
    collection: url(paths.events),
    fields: [
      field('edit', { name: 'title', label: 'Title', value: event.title, hint: '1–200 characters' }),
      field('edit', { name: 'date', label: 'Date', value: date, hint: dateHint }),
      locationField('edit', choices, event.locationId),
    ],
    submit: 'Save',
  }),
  writeForm({
    id: 'delete',
    heading: 'Delete',
    method: 'DELETE',
    action: self,
    accept: mediaTypes.event,
    ifMatch: etag,
    success: 'deleted',
    collection: url(paths.events),
    submit: 'Delete this event',
    confirm: deleteConfirmation(`the event “${event.title}”`),
  }),
])}`
  return page(url, { title: event.title, path: paths.event(event.id), main, forms: true })
}

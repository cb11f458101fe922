// The HTML views of /locations and /locations/<id>: each location with a link to its events, and
// the write forms (a location with events cannot be deleted: the 409 is said in words).
import { mediaTypes } from '../../contract/media-types.ts'
import { versionEtag } from '../../domain/etag.ts'
import { pageRelations } from '../../domain/paging.ts'
import type { Location } from '../../domain/types.ts'
import { locationLinks, paths } from '../links.ts'
import { html } from './escape.ts'
import { changeSection, deleteConfirmation, field, writeForm } from './forms.ts'
import { page, type UrlOf } from './layout.ts'
import { type CollectionView, linkList, pageLinks } from './parts.ts'

const locationFields = (formId: string, location?: Location) => [
  field(formId, { name: 'name', label: 'Name', value: location?.name, hint: '1–200 characters' }),
  field(formId, { name: 'address', label: 'Address', value: location?.address, hint: '1–300 characters' }),
]

export function locationCollectionPage(url: UrlOf, view: CollectionView<Location>) {
  const { page: current, total, items } = view
  const rows = items.map(
    (location) => html`<tr>
<td><a href="${url(paths.location(location.id))}">${location.name}</a></td>
<td>${location.address}</td>
<td><a href="${url(paths.eventsAt(location.id))}">Its events</a></td>
</tr>`,
  )
  const main = html`<h1>Locations</h1>
<p>${total === 1 ? '1 location' : `${total} locations`}. Page ${current.page}, ${current.perPage} per page.</p>
${
  items.length === 0
    ? html`<p>No locations on this page.</p>`
    : html`<table>
<caption>Locations by id</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Address</th><th scope="col">Events</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${pageLinks(url, pageRelations(current, total), (n) => paths.page(n, current.perPage, paths.locations))}
${changeSection(
  'Add a location',
  writeForm({
    id: 'create',
    heading: 'New location',
    method: 'POST',
    action: url(paths.locations),
    type: mediaTypes.location,
    accept: mediaTypes.location,
    success: 'created',
    collection: url(paths.locations),
    fields: locationFields('create'),
    submit: 'Add the location',
  }),
)}`
  return page(url, { title: 'Locations', path: paths.locations, main, forms: true })
}

export function locationPage(url: UrlOf, location: Location) {
  const etag = versionEtag(location.version)
  const self = url(paths.location(location.id))
  const main = html`<h1 data-field="name">${location.name}</h1>
<dl>
<dt>Address</dt><dd data-field="address">${location.address}</dd>
<dt>Events</dt><dd><a href="${url(paths.eventsAt(location.id))}">The events at this location</a></dd>
<dt>Id</dt><dd>${location.id}</dd>
<dt>ETag</dt><dd><code data-field="etag">${etag}</code> (of the JSON representation)</dd>
</dl>
<h2>Links</h2>
${linkList(url, locationLinks(location))}
${changeSection('Change this location', [
  writeForm({
    id: 'edit',
    heading: 'Edit',
    method: 'PUT',
    action: self,
    type: mediaTypes.location,
    accept: mediaTypes.location,
    ifMatch: etag,
    success: 'updated',
    collection: url(paths.locations),
    fields: locationFields('edit', location),
    submit: 'Save',
  }),
  writeForm({
    id: 'delete',
    heading: 'Delete',
    method: 'DELETE',
    action: self,
    accept: mediaTypes.location,
    ifMatch: etag,
    success: 'deleted',
    collection: url(paths.locations),
    submit: 'Delete this location',
    confirm: deleteConfirmation(`the location “${location.name}”`),
  }),
])}`
  return page(url, { title: location.name, path: paths.location(location.id), main, forms: true })
}

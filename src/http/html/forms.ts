// The markup of the write forms. The forms send nothing by themselves: the script
// (html/forms-script.ts) reads their data-* attributes and sends the contract's JSON request.
// They stay hidden until the script runs, so a page without it is a plain read-only page, and
// they leave checking to the service (novalidate): its 422 names each field, as for any client.
import { html, type Interpolation } from './escape.ts'

/** Where the script says what happened, read out by screen readers as it changes. */
const statusRegion = html`<p id="status" class="status" role="status" aria-live="polite"></p>`

const credentials = html`<fieldset>
<legend>Your credentials</legend>
<p class="hint" id="credentials-hint">An editor’s user name and password, sent with each change
(HTTP Basic). They stay in this page: never stored, gone when you leave it.</p>
<label for="username">User name</label>
<input id="username" autocomplete="username" aria-describedby="credentials-hint">
<label for="password">Password</label>
<input id="password" type="password" autocomplete="current-password">
</fieldset>`

export interface FieldSpec {
  readonly name: string
  readonly label: string
  readonly value?: string | number
  readonly type?: 'text' | 'number'
  readonly hint?: string
}

/** A labelled input, its hint, and the slot the script fills with its field error (422). */
export function field(formId: string, { name, label, value, type = 'text', hint }: FieldSpec) {
  const id = `${formId}-${name}`
  const described = hint ? `${id}-hint ${id}-error` : `${id}-error`
  return html`<label for="${id}">${label}</label>
<input id="${id}" name="${name}" type="${type}" value="${value ?? ''}" aria-required="true" aria-describedby="${described}"${type === 'number' && html` min="1" step="1"`}>
${hint && html`<p class="hint" id="${id}-hint">${hint}</p>`}
<p class="field-error" id="${id}-error" data-error-for="${name}"></p>`
}

/** One option of a select: a location, say, by id. */
export interface Choice {
  readonly value: number
  readonly label: string
}

export interface SelectSpec {
  readonly name: string
  readonly label: string
  readonly choices: readonly Choice[]
  /** The value selected when the page is made; absent: a first option that names none. */
  readonly value?: number
  readonly hint?: string
}

/** A labelled select whose values are ids (the script sends them as numbers), with its error slot. */
export function selectField(formId: string, { name, label, choices, value, hint }: SelectSpec) {
  const id = `${formId}-${name}`
  const described = hint ? `${id}-hint ${id}-error` : `${id}-error`
  const options = choices.map(
    (choice) =>
      html`<option value="${choice.value}"${choice.value === value && html` selected`}>${choice.label}</option>`,
  )
  return html`<label for="${id}">${label}</label>
<select id="${id}" name="${name}" data-number aria-required="true" aria-describedby="${described}">
${value === undefined && html`<option value="">Choose one</option>`}${options}
</select>
${hint && html`<p class="hint" id="${id}-hint">${hint}</p>`}
<p class="field-error" id="${id}-error" data-error-for="${name}"></p>`
}

/**
 * Asked in the page before the form is sent (a <dialog>, opened by the script as a modal: the
 * person confirms or keeps things as they are; Escape keeps them too).
 */
export interface Confirmation {
  readonly question: string
  readonly consequence: string
  readonly yes: string
  readonly no: string
}

/** The question before a delete: `what` names the thing deleted. */
export const deleteConfirmation = (what: string): Confirmation => ({
  question: `Delete ${what}?`,
  consequence: 'It is gone for good: this cannot be undone.',
  yes: 'Yes, delete it',
  no: 'No, keep it',
})

export interface WriteFormSpec {
  readonly id: string
  readonly heading: string
  /** PATCH forms send a merge patch of the fields the person changed, and nothing else. */
  readonly method: 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Public URL of the request's target. */
  readonly action: string
  /** The media type of the JSON body; absent for DELETE. */
  readonly type?: string
  /** The media type asked for in the answer (and of the current version, after a 412). */
  readonly accept: string
  /** The JSON representation's ETag, sent as If-Match. */
  readonly ifMatch?: string
  readonly success: 'updated' | 'created' | 'deleted'
  /** Public URL of the list to go back to. */
  readonly collection: string
  readonly fields?: Interpolation
  readonly submit: string
  readonly confirm?: Confirmation
}

export function writeForm(spec: WriteFormSpec) {
  const { confirm } = spec
  const dialog = confirm
    ? html`<dialog id="${spec.id}-confirm" data-confirm aria-labelledby="${spec.id}-confirm-question" aria-describedby="${spec.id}-confirm-consequence">
<p class="question" id="${spec.id}-confirm-question">${confirm.question}</p>
<p id="${spec.id}-confirm-consequence">${confirm.consequence}</p>
<div class="choices"><button type="button" data-confirm-yes>${confirm.yes}</button>
<button type="button" data-confirm-no autofocus>${confirm.no}</button></div>
</dialog>`
    : undefined
  return html`<form id="${spec.id}" data-write data-method="${spec.method}" data-action="${spec.action}"${spec.type && html` data-type="${spec.type}"`} data-accept="${spec.accept}"${spec.ifMatch && html` data-if-match="${spec.ifMatch}"`} data-success="${spec.success}" data-collection="${spec.collection}" aria-labelledby="${spec.id}-heading" novalidate>
<h3 id="${spec.id}-heading">${spec.heading}</h3>
${spec.fields}
<button type="submit">${spec.submit}</button>
${dialog}
</form>`
}

/** The part of a page that changes things: credentials, the forms, and the status region. */
export function changeSection(heading: string, forms: Interpolation) {
  return html`<section aria-labelledby="change-heading" data-needs-script hidden>
<h2 id="change-heading">${heading}</h2>
${credentials}
${statusRegion}
${forms}
</section>`
}

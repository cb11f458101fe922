// The one place where text becomes HTML. Every interpolation of the `html` tag is escaped unless
// it is already Html (made by this tag), so data can reach a page only as text.

/**
 * Markup that is safe to put in a page as it is. Only the tag below makes one (the class is not
 * exported), so no plain string can pass for markup.
 */
class Html {
  readonly #markup: string
  constructor(markup: string) {
    this.#markup = markup
  }
  toString(): string {
    return this.#markup
  }
}

export type { Html }

/** What a page may interpolate: text (escaped), markup, or a list of either; nothing renders as nothing. */
export type Interpolation = Html | string | number | null | undefined | false | readonly Interpolation[]

// `'` and `"` too, so that escaped text is safe inside an attribute value of either quoting.
const special = /[&<>"']/g
const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

export const escapeHtml = (text: string): string => text.replace(special, (c) => entities[c] as string)

function render(value: Interpolation): string {
  if (value instanceof Html) return value.toString()
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false) return ''
  return escapeHtml(String(value))
}

/** A tagged template: `html\`<p>${text}</p>\`` escapes `text`; nested `html` stays markup. */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): Html {
  let markup = strings[0] ?? ''
  for (let i = 0; i < values.length; i++)
    markup += render(values[i] as Interpolation) + (strings[i + 1] ?? '')
  return new Html(markup)
}

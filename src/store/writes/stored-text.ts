// What every write of text obeys, whatever it writes.
import { invalidField } from '../../domain/errors.ts'
import { foldTitle } from '../../domain/event-filter.ts'

/**
 * A title and its folded form, which the search reads (CONTRACT.md §3, `q`): every write of a
 * title writes both, so the two never disagree.
 */
export const titleColumns = (title: string) => ({ title, title_folded: foldTitle(title) })

// PostgreSQL's text type cannot hold U+0000; every store refuses it so that all stores agree.
export function requireStorable(pointer: string, text: string | undefined) {
  if (text?.includes('\u0000'))
    throw invalidField(pointer, 'contains the character U+0000, which cannot be stored')
}

// I-JSON (RFC 7493 §2.3): objects must not have members with duplicate names. JSON.parse keeps the
// last of them silently, so `{"title":"a","title":"b"}` would be read as "b" while a proxy, a log or
// a signature check before this service may have read "a". This scans text that JSON.parse has
// already accepted, so it follows only what it needs (strings, the nesting of objects and arrays,
// which strings are member names) and leaves the grammar to the parser. Names are compared as
// decoded ("a" and "\u0061" are the same name), in every object, however deeply nested.
// @humanwhocodes/momoa could tell the same from a full syntax tree; for this one question, a
// scan that allocates nothing but the names is enough.

/** The first member name that occurs twice in one object of `text` (valid JSON), or undefined. */
export function duplicateMemberName(text: string): string | undefined {
  // One frame per open object (its names so far) or array (null).
  const frames: (Set<string> | null)[] = []
  let expectName = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i)
      const names = frames.at(-1)
      if (names && expectName) {
        const raw = text.slice(i, end + 1)
        // Escapes only need decoding when there are any.
        const name = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1)
        if (names.has(name)) return name
        names.add(name)
        expectName = false
      }
      i = end
    } else if (c === 0x7b /* { */) {
      frames.push(new Set())
      expectName = true
    } else if (c === 0x5b /* [ */) {
      frames.push(null)
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      frames.pop()
    } else if (c === 0x2c /* , */) {
      expectName = frames.at(-1) != null
    }
  }
  return undefined
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 0x5c /* \ */) i += 2
    else if (c === 0x22) return i
    else i++
  }
  return i
}

// HTTP Basic (RFC 7617) credential parsing: a pure function, tested on its own.

export interface BasicCredentials {
  readonly user: string
  readonly password: string
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Parses `Basic <base64(user:password)>`; undefined when the field is not well-formed Basic. */
export function parseBasic(field: string | undefined): BasicCredentials | undefined {
  if (field === undefined) return undefined
  const m = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(field)
  if (!m?.[1] || m[1].length % 4 !== 0) return undefined
  let decoded: string
  try {
    decoded = utf8.decode(Buffer.from(m[1], 'base64'))
  } catch {
    return undefined
  }
  const colon = decoded.indexOf(':')
  // RFC 7617 §2: the user-id cannot contain a colon; neither part may hold control characters.
  if (colon < 1 || hasControlCharacter(decoded)) return undefined
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === 0x7f) return true
  }
  return false
}

// Which TLS versions and cipher suites the service offers (TLS_MIN_VERSION, TLS_CIPHERS;
// CONTRACT.md §4: TLS 1.2 with ECDHE and AEAD suites only, and TLS 1.3).
//
// TLS 1.2: only suites with forward secrecy (ECDHE) and authenticated encryption (AES-GCM,
// ChaCha20-Poly1305). Node's default list also offers static-RSA key exchange (no forward
// secrecy) and CBC suites (Lucky Thirteen, RFC 7457 §2.8). TLS 1.3's suites are all ECDHE/DHE with
// AEAD and stay OpenSSL's own; TLS_CIPHERS does not name them.
//
// TLS_CIPHERS is an OpenSSL cipher string (`ECDHE+AESGCM:ECDHE+CHACHA20` works as well as a list of
// names), so it may narrow or reorder the set but never widen it: a string OpenSSL refuses, or one
// that enables any suite outside `aeadEcdheSuites`, stops start-up with a line naming the suites.
import { createSecureContext, getCiphers } from 'node:tls'

export type TlsMinVersion = 'TLSv1.2' | 'TLSv1.3'
export const tlsMinVersions: readonly TlsMinVersion[] = ['TLSv1.2', 'TLSv1.3']

/** The TLS 1.2 suites TLS_CIPHERS may enable (OpenSSL names), strongest first: the default. */
export const aeadEcdheSuites: readonly string[] = [
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
]

export const defaultTlsCiphers = aeadEcdheSuites.join(':')

/** What the TLS server (and every certificate reload) is given besides the certificate and key. */
export interface TlsPolicy {
  readonly minVersion: TlsMinVersion
  readonly ciphers: string
  /** The server's order wins over the client's (RFC 9325 §4.2), so the strongest shared suite is used. */
  readonly honorCipherOrder: true
}

export function tlsPolicy(minVersion: TlsMinVersion, ciphers: string): TlsPolicy {
  return { minVersion, ciphers, honorCipherOrder: true }
}

/** Why a TLS_CIPHERS value cannot be used, or undefined when it can. */
export function cipherStringProblem(text: string): string | undefined {
  if (/(^|[:,\s])TLS_/.test(text)) {
    return 'names a TLS 1.3 suite (TLS_…): TLS_CIPHERS sets the TLS 1.2 suites only; TLS 1.3 offers its own, all AEAD'
  }
  if (!enables(text, [])) return 'OpenSSL enables no cipher suite with it'
  const others = extraSuites(text)
  if (others.length > 0) {
    const named = others.length > 6 ? [...others.slice(0, 6), `${others.length - 6} more`] : others
    return `enables ${named.join(', ')}: only ECDHE suites with AES-GCM or ChaCha20-Poly1305 are allowed (${aeadEcdheSuites.join(', ')})`
  }
  return undefined
}

/**
 * Whether OpenSSL finds any suite in `text` once `removed` are taken out for good (`!NAME`): it
 * refuses a context with no TLS 1.2 suite ("no cipher match"). OpenSSL itself expands the string.
 */
function enables(text: string, removed: readonly string[]): boolean {
  try {
    createSecureContext({ ciphers: [text, ...removed.map((name) => `!${name}`)].join(':') })
    return true
  } catch {
    return false
  }
}

/**
 * The suites outside the allowed set that `text` enables, by name, when Node can name them all
 * (its list lacks some OpenSSL has, such as the CCM and ARIA suites); else a pointer to OpenSSL.
 */
function extraSuites(text: string): string[] {
  if (!enables(text, aeadEcdheSuites)) return []
  const others = getCiphers()
    .map((name) => name.toUpperCase())
    .filter((name) => !name.startsWith('TLS_') && !aeadEcdheSuites.includes(name))
  const unnamed = `suites that \`openssl ciphers -v '${text}'\` lists`
  if (enables(text, [...aeadEcdheSuites, ...others])) return [unnamed]
  // With nothing left over, `name` is enabled when taking out every other suite still leaves one.
  return others.filter((name) =>
    enables(text, [...aeadEcdheSuites, ...others.filter((other) => other !== name)]),
  )
}

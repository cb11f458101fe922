// Self-signed certificates made with openssl for the tests of HTTPS (test/process/tls.test.ts,
// test/process/http2.test.ts).
import { execFileSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface Certificate {
  readonly cert: string
  readonly key: string
  readonly pem: string
  readonly fingerprint256: string
}

let made = 0
/** A new self-signed certificate (P-256, or RSA) for localhost and 127.0.0.1, valid for a day, in `dir`. */
export function makeCertificate(
  dir: string,
  commonName = 'localhost',
  keyType: 'ec' | 'rsa' = 'ec',
): Certificate {
  const n = ++made
  const cert = join(dir, `cert-${n}.pem`)
  const key = join(dir, `key-${n}.pem`)
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      ...(keyType === 'ec' ? ['ec', '-pkeyopt', 'ec_paramgen_curve:P-256'] : ['rsa:2048']),
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  )
  const pem = readFileSync(cert, 'utf8')
  return { cert, key, pem, fingerprint256: new X509Certificate(pem).fingerprint256 }
}

// HTTPS served by the service itself (TLS_CERT, TLS_KEY): the certificate and key are read and
// checked before the server exists, so a bad file stops start-up with one plain line, and are read
// again on SIGHUP, so a renewed certificate is served without dropping a connection.
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createSecureContext, type Server as TlsServer } from 'node:tls'
import type { FastifyBaseLogger } from 'fastify'
import type { TlsPolicy } from './tls-policy.ts'

export interface TlsFiles {
  /** Path of the PEM certificate chain, the server's own certificate first. */
  readonly cert: string
  /** Path of the PEM private key of that certificate. */
  readonly key: string
}

export interface TlsMaterial {
  readonly cert: Buffer
  readonly key: Buffer
  /** What the log says about the certificate in use. */
  readonly certificate: CertificateSummary
}

export interface CertificateSummary {
  readonly subject: string
  readonly subjectAltName: string | undefined
  readonly issuer: string
  readonly validTo: string
  readonly fingerprint256: string
}

/** RFC 6797 §6.1: the browser keeps to HTTPS for this host for a year after each response. */
export const strictTransportSecurity = 'max-age=31536000'

/** A certificate or key that cannot be served; `message` is one plain line. */
export class TlsFileError extends Error {
  override readonly name = 'TlsFileError'
}

/** Reads and checks the certificate and key; throws a TlsFileError saying what is wrong. */
export function loadTlsMaterial(files: TlsFiles): TlsMaterial {
  const cert = readPem(files.cert, 'TLS_CERT')
  const key = readPem(files.key, 'TLS_KEY')
  let certificate: X509Certificate
  try {
    certificate = new X509Certificate(cert)
  } catch {
    throw new TlsFileError(`TLS_CERT ${files.cert} holds no PEM certificate`)
  }
  let privateKey: ReturnType<typeof createPrivateKey>
  try {
    privateKey = createPrivateKey(key)
  } catch {
    throw new TlsFileError(`TLS_KEY ${files.key} holds no unencrypted PEM private key`)
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new TlsFileError(`TLS_KEY ${files.key} is not the key of the certificate in TLS_CERT ${files.cert}`)
  }
  try {
    // What the server will do with them: any other problem (a broken chain entry) shows here.
    createSecureContext({ cert, key })
  } catch (error) {
    throw new TlsFileError(
      `TLS_CERT ${files.cert} and TLS_KEY ${files.key} cannot be used: ${(error as Error).message}`,
    )
  }
  return {
    cert,
    key,
    certificate: {
      subject: certificate.subject.replaceAll('\n', ', '),
      subjectAltName: certificate.subjectAltName,
      issuer: certificate.issuer.replaceAll('\n', ', '),
      validTo: new Date(certificate.validTo).toISOString(),
      fingerprint256: certificate.fingerprint256,
    },
  }
}

function readPem(path: string, setting: string): Buffer {
  try {
    return readFileSync(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : code
    throw new TlsFileError(`${setting} ${path} cannot be read (${why})`)
  }
}

/** Logs the certificate in use, warning when it has expired (clients will refuse it). */
export function logCertificate(log: FastifyBaseLogger, certificate: CertificateSummary, message: string) {
  if (Date.parse(certificate.validTo) <= Date.now()) {
    log.warn({ certificate }, `${message}; it has EXPIRED and clients will refuse it`)
  } else {
    log.info({ certificate }, message)
  }
}

/**
 * Reads the files again and serves them to new connections (open ones keep theirs). A reload that
 * fails keeps the certificate in use and logs why. The policy is given again: Node's
 * setSecureContext builds the context from its options alone, so without it a reload would fall
 * back to Node's default suites.
 */
export function reloadTls(
  server: TlsServer,
  files: TlsFiles,
  policy: TlsPolicy,
  log: FastifyBaseLogger,
): boolean {
  let material: TlsMaterial
  try {
    material = loadTlsMaterial(files)
    server.setSecureContext({ ...policy, cert: material.cert, key: material.key })
  } catch (error) {
    log.error({ reason: (error as Error).message }, 'TLS certificate not reloaded: keeping the one in use')
    return false
  }
  logCertificate(log, material.certificate, 'TLS certificate reloaded')
  return true
}

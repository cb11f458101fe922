// Start-up failures as one plain line and a hint, for the person at the terminal or reading the
// journal; the structured log keeps the details.
import type { Config } from './config.ts'
import { TlsFileError } from './http/tls.ts'
import { explainConnectionFailure } from './store/connection-problems.ts'
import { StoredKeysProblem } from './stored-keys.ts'

export function startupProblem(error: unknown, config: Pick<Config, 'databaseUrl' | 'port' | 'host'>) {
  if (error instanceof TlsFileError) {
    return {
      reason: error.message,
      hint: 'TLS_CERT and TLS_KEY must be readable PEM files: the certificate chain and its unencrypted private key',
    }
  }
  if (error instanceof StoredKeysProblem) return { reason: error.message, hint: error.hint }
  const database = explainConnectionFailure(error, config.databaseUrl)
  if (database) return database
  const code = (error as { code?: unknown } | undefined)?.code
  if (code === 'EADDRINUSE') {
    return {
      reason: `port ${config.port} on ${config.host} is already in use`,
      hint: 'stop the process that holds it, or choose another port with PORT',
    }
  }
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    return {
      reason: `cannot listen on ${config.host}:${config.port} (${code})`,
      hint: 'ports below 1024 need privileges; HOST must be an address of this machine',
    }
  }
  const message = error instanceof Error ? error.message : String(error)
  return { reason: message.split('\n')[0] ?? message, hint: 'run with LOG_LEVEL=debug for the details' }
}

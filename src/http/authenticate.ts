// Authentication and authorisation of writes. Schemes are tried in turn: Basic now; a request
// signature (RFC 9421) plugs in beside it as a second scheme that also yields a User.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CredentialVerifier } from '../auth/credential-verifier.ts'
import { DomainError } from '../domain/errors.ts'
import type { User } from '../domain/types.ts'
import { parseBasic } from './basic-auth.ts'

export const basicChallenge = 'Basic realm="events", charset="UTF-8"'

export function authenticator(verifier: CredentialVerifier) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<User> {
    const credentials = parseBasic(request.headers.authorization)
    const user = credentials && (await verifier.verify(credentials.user, credentials.password))
    if (!user) {
      // RFC 9110 §11.6.1: a 401 carries at least one challenge.
      reply.header('www-authenticate', basicChallenge)
      throw new DomainError(
        'unauthenticated',
        request.headers.authorization === undefined
          ? 'this request needs credentials (HTTP Basic)'
          : 'the credentials are not valid',
      )
    }
    if (user.role !== 'editor')
      throw new DomainError('forbidden', `user "${user.name}" may read but not write`)
    return user
  }
}

// Who sends a request, and whether they may do what it asks (CONTRACT.md §4).
//
// Schemes are tried in turn; the first that finds its own credentials in the request decides:
// a user, or a refusal (401, or 429 when too many attempts failed). Basic is the only scheme now;
// a request signature (RFC 9421) is one more entry in the list given to `authenticator`, and its
// challenge joins Basic's in every 401.
//
// Credentials are checked on every declared operation that carries them, reads included (as
// GitHub's API does): wrong credentials on a GET are a 401, never silently ignored, so a client
// learns at once that its password is wrong. Valid credentials of a reader or an editor are fine on
// a read (no 403). Writes need an editor. OPTIONS (CORS preflights included: browsers send them
// without credentials), 405 and 404 answers never look at credentials.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { TooManyAttempts } from '../auth/failed-attempts.ts'
import { DomainError } from '../domain/errors.ts'
import type { User } from '../domain/types.ts'
import { parseBasic } from './basic-auth.ts'

export interface AuthScheme {
  /** Its challenge (RFC 9110 §11.6.1), sent with every 401. */
  readonly challenge: string
  /**
   * undefined when the request carries none of this scheme's credentials; the user when they are
   * valid. Throws `unauthenticated` when they are not, `rate_limited` when checking is refused.
   */
  identify(request: FastifyRequest): Promise<User | undefined>
}

/** Checks name and password; throws TooManyAttempts when `client` or `name` failed too often. */
export interface PasswordChecker {
  verify(name: string, password: string, client: string): Promise<User | undefined>
}

export const basicChallenge = 'Basic realm="events", charset="UTF-8"'

/** HTTP Basic (RFC 7617): any Authorization field is this scheme's to judge. */
export function basicScheme(verifier: PasswordChecker): AuthScheme {
  return {
    challenge: basicChallenge,
    async identify(request) {
      const field = request.headers.authorization
      if (field === undefined) return undefined
      const credentials = parseBasic(field)
      const user = credentials && (await verifier.verify(credentials.user, credentials.password, request.ip))
      // One message for a malformed field, an unknown user and a wrong password: the answer must
      // not tell which names exist.
      if (!user) throw new DomainError('unauthenticated', 'the credentials are not valid')
      return user
    },
  }
}

export type Authenticate = (
  request: FastifyRequest,
  reply: FastifyReply,
  write: boolean,
) => Promise<User | undefined>

export function authenticator(schemes: readonly AuthScheme[]): Authenticate {
  const challenges = schemes.map((scheme) => scheme.challenge).join(', ')
  return async function authenticate(request, reply, write) {
    let user: User | undefined
    try {
      for (const scheme of schemes) {
        user = await scheme.identify(request)
        if (user) break
      }
    } catch (error) {
      // RFC 9110 §11.6.1: a 401 carries at least one challenge.
      if (error instanceof DomainError && error.code === 'unauthenticated') {
        reply.header('www-authenticate', challenges)
      }
      // RFC 6585 §4 and RFC 9110 §10.2.3: when to try again. The quota is AUTH_FAILURES_PER_MINUTE
      // per address and per name; the RateLimit fields (draft-ietf-httpapi-ratelimit-headers) name
      // it and say none is left until then.
      if (error instanceof TooManyAttempts) {
        const { limit, windowSeconds } = error.policy
        reply.header('retry-after', String(error.retryAfterSeconds))
        reply.header('ratelimit-policy', `"auth-failures";q=${limit};w=${windowSeconds}`)
        reply.header('ratelimit', `"auth-failures";r=0;t=${error.retryAfterSeconds}`)
      }
      throw error
    }
    if (!write) return user
    if (!user) {
      reply.header('www-authenticate', challenges)
      throw new DomainError('unauthenticated', 'this request needs credentials (HTTP Basic)')
    }
    if (user.role !== 'editor')
      throw new DomainError('forbidden', `user "${user.name}" may read but not write`)
    return user
  }
}

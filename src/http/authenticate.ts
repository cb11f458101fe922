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
import { CredentialsChanged, DomainError, echo } from '../domain/errors.ts'
import { type CredentialCheck, mayWrite, type User } from '../domain/types.ts'
import { parseBasic } from './basic-auth.ts'

export interface AuthScheme {
  /** Its challenge (RFC 9110 §11.6.1), sent with every 401; empty for a scheme the server does not offer. */
  readonly challenge: string
  /**
   * undefined, at once, when the request carries none of this scheme's credentials (most reads
   * carry none, and wait for nothing); else the user when they are valid, rejecting with
   * `unauthenticated` when they are not and `rate_limited` when checking is refused. With
   * `deferrable`, the user may come back `unconfirmed` (see confirmedWrite).
   */
  identify(request: FastifyRequest, deferrable: boolean): Promise<User> | undefined
}

/** Checks name and password; throws TooManyAttempts when `client` or `name` failed too often. */
export interface PasswordChecker {
  verify(name: string, password: string, client: string, deferrable: boolean): Promise<User | undefined>
}

export const basicChallenge = 'Basic realm="events", charset="UTF-8"'

/** HTTP Basic (RFC 7617): any Authorization field is this scheme's to judge. */
export function basicScheme(verifier: PasswordChecker): AuthScheme {
  return {
    challenge: basicChallenge,
    identify(request, deferrable) {
      const field = request.headers.authorization
      if (field === undefined) return undefined
      const check = async () => {
        const credentials = parseBasic(field)
        const user =
          credentials &&
          (await verifier.verify(credentials.user, credentials.password, request.ip, deferrable))
        // One message for a malformed field, an unknown user and a wrong password: the answer must
        // not tell which names exist.
        if (!user) throw new DomainError('unauthenticated', 'the credentials are not valid')
        return user
      }
      return check()
    },
  }
}

/**
 * The request's user, checked: undefined at once when it carries no credentials and may go
 * without; a promise when credentials must be checked. Throws (or rejects) with the refusal.
 * `deferrable`: the operation's write confirms the credentials itself (confirmedWrite).
 */
export type Authenticate = (
  request: FastifyRequest,
  reply: FastifyReply,
  write: boolean,
  deferrable?: boolean,
) => Promise<User> | undefined

export function authenticator(schemes: readonly AuthScheme[]): Authenticate {
  const challenges = schemes
    .map((scheme) => scheme.challenge)
    .filter((challenge) => challenge !== '')
    .join(', ')
  const refused = (error: unknown, reply: FastifyReply): never => {
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
  const allowed = (user: User, write: boolean): User => {
    if (write && !mayWrite(user.role))
      throw new DomainError('forbidden', `user "${echo(user.name)}" may read but not write`)
    return user
  }
  return function authenticate(request, reply, write, deferrable = false) {
    // The first scheme whose credentials the request carries decides.
    for (const scheme of schemes) {
      const identified = scheme.identify(request, deferrable)
      if (identified) {
        return identified.then(
          (user) => allowed(user, write),
          (error: unknown) => refused(error, reply),
        )
      }
    }
    if (!write) return undefined
    return refused(new DomainError('unauthenticated', 'this request needs credentials (HTTP Basic)'), reply)
  }
}

/**
 * Runs a write that can confirm its principal's credentials in its own statement. A principal
 * remembered from earlier requests and not looked up again (`unconfirmed`) is confirmed there: the
 * store writes only if the user is still an editor with that password hash, saving the lookup's
 * round trip. If they are not (the password, the role or the user changed, on any instance), the
 * request is authenticated anew, as the pipeline does it (401, 403), and written again.
 */
export async function confirmedWrite<T>(
  request: FastifyRequest,
  write: (asUser: CredentialCheck | undefined) => Promise<T>,
): Promise<T> {
  const principal = request.principal
  const confirm = request.confirmPrincipal
  if (!principal?.unconfirmed || !confirm) return write(undefined)
  // A signed write spends its nonce (store: SignatureCheck), also when it fails; when it finds the
  // key changed or the nonce spent, authentication in full spends it or refuses the request.
  request.unspentNonce = null
  try {
    return await write(principal.signature ?? { name: principal.name, passwordHash: principal.passwordHash })
  } catch (error) {
    if (!(error instanceof CredentialsChanged)) throw error
    request.principal = await confirm()
    return write(undefined)
  }
}

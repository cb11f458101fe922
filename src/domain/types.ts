// The service's own objects, as the store returns them and the HTTP layer represents them.

export interface Event {
  readonly id: number
  readonly title: string
  /** Epoch milliseconds, UTC. */
  readonly date: number
  readonly locationId: number
  /** Increases with every change; the ETag is made from it. */
  readonly version: number
}

export interface Location {
  readonly id: number
  readonly name: string
  readonly address: string
  readonly version: number
}

export const roles = ['editor', 'reader'] as const
export type Role = (typeof roles)[number]

/**
 * The one rule of who may write: editors. The HTTP layer asks it of an authenticated user, and a
 * write that confirms its credentials in its own statement (CredentialCheck) asks the store for
 * exactly these roles.
 */
export const writingRoles: readonly Role[] = ['editor']
export const mayWrite = (role: Role): boolean => writingRoles.includes(role)

export interface User {
  readonly id: number
  readonly name: string
  readonly role: Role
  readonly passwordHash: string
  /**
   * Set on an editor remembered from an earlier check of the same credentials and not looked up
   * again for this request: the write that takes it confirms it in its own statement.
   */
  readonly unconfirmed?: true
  /** On an `unconfirmed` API key's principal: what its write confirms (and spends) in its statement. */
  readonly signature?: SignatureCheck
}

/** What a write confirms in its own statement: that this user is still an editor with this hash. */
export interface PasswordCheck {
  readonly name: string
  readonly passwordHash: string
}

/**
 * What a signed write confirms in its own statement: that the key still signs (not revoked, an
 * editor's, with this sealed secret), and its nonce, which that statement spends.
 */
export interface SignatureCheck {
  readonly keyId: string
  readonly sealedSecret: string
  readonly nonce: string
  /** Epoch milliseconds: until when the nonce is remembered. */
  readonly nonceExpiresAt: number
}

export type CredentialCheck = PasswordCheck | SignatureCheck

export const isSignatureCheck = (check: CredentialCheck): check is SignatureCheck => 'keyId' in check

export interface EventChanges {
  readonly title?: string
  readonly date?: number
  readonly locationId?: number
}

export interface LocationChanges {
  readonly name?: string
  readonly address?: string
}

/**
 * The stored versions an If-Match or If-None-Match field names: `*` (whatever version is stored),
 * or the versions of the listed tags that are version tags of this service.
 */
export type VersionSet =
  | { readonly kind: 'any' }
  | { readonly kind: 'versions'; readonly versions: readonly number[] }

/**
 * If-Match and If-None-Match (RFC 9110 §13.1.1, §13.1.2) reduced to what the store checks in the
 * very statement that writes, so that concurrent writers cannot both pass. A write happens only
 * when every part present holds.
 */
export interface Precondition {
  /** If-Match: the stored version is in the set (strong comparison, so weak tags are left out). */
  readonly match?: VersionSet
  /** If-None-Match: the stored version is not in the set (weak comparison); `any` never holds. */
  readonly noneMatch?: VersionSet
}

export interface Page {
  readonly page: number
  readonly perPage: number
}

/**
 * Which events a collection request finds (CONTRACT.md §3, "Finding events"); every part present
 * must hold. An empty filter finds every event.
 */
export interface EventFilter {
  /** Epoch milliseconds; events at or after it. */
  readonly from?: number
  /** Epoch milliseconds; events before it. */
  readonly to?: number
  readonly locationId?: number
  /** Titles containing it, both folded by foldTitle (domain/event-filter.ts). */
  readonly q?: string
}

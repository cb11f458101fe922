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

export interface User {
  readonly id: number
  readonly name: string
  readonly role: Role
  readonly passwordHash: string
}

export interface EventChanges {
  readonly title?: string
  readonly date?: number
  readonly locationId?: number
}

/** `If-Match` reduced to what the store can check in one conditional statement. */
export type Precondition =
  | { readonly kind: 'any' }
  | { readonly kind: 'versions'; readonly versions: readonly number[] }

export interface Page {
  readonly page: number
  readonly perPage: number
}

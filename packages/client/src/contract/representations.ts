// Written by `npm run schema` from the TypeBox schemas of src/contract/schemas.ts (the
// server's): do not edit. The wire representations and request bodies (CONTRACT.md §2, §3).

export type Link = {
  /** path of the linked resource, relative to the base URL */
  uri: string
  /** space-separated relation names */
  rel: string
  /** media type of the linked resource; a +json type without its +json suffix */
  type: string
}

export type EntryPointRepresentation = {
  links: Link[]
}

export type EventRepresentation = {
  /** the resource itself and what it relates to */
  links: Link[]
  /** assigned by the service, never reused */
  id: number
  title: string
  /** in UTC with a trailing Z */
  date: string
}

export type EventCollectionRepresentation = {
  total: number
  events: EventRepresentation[]
}

export type LocationRepresentation = {
  /** the resource itself and what it relates to */
  links: Link[]
  /** assigned by the service, never reused */
  id: number
  name: string
  address: string
}

export type LocationCollectionRepresentation = {
  total: number
  locations: LocationRepresentation[]
}

export type Problem = {
  type: string
  title: string
  status: number
  detail: string
  errors?: Array<{
    /** JSON Pointer (RFC 6901) into the request body */
    pointer: string
    detail: string
  }>
}

export type EventCreate = {
  /** 1–200 characters, not only whitespace */
  title: string
  /** RFC 3339 date-time, `Z` or an offset, at most milliseconds (further digits only zeros), in years 0100–9999 also in UTC; returned in UTC with a trailing Z */
  date: string
  location_id: number
}

export type EventReplace = {
  /** 1–200 characters, not only whitespace */
  title: string
  /** RFC 3339 date-time, `Z` or an offset, at most milliseconds (further digits only zeros), in years 0100–9999 also in UTC; returned in UTC with a trailing Z */
  date: string
  /** must equal the id in the path */
  id?: number
  /** ignored */
  links?: unknown[]
}

export type EventPatch = {
  /** 1–200 characters, not only whitespace */
  title?: string
  /** RFC 3339 date-time, `Z` or an offset, at most milliseconds (further digits only zeros), in years 0100–9999 also in UTC; returned in UTC with a trailing Z */
  date?: string
  location_id?: number
}

export type LocationCreate = {
  /** 1–200 characters, not only whitespace */
  name: string
  /** 1–300 characters, not only whitespace */
  address: string
}

export type LocationReplace = {
  /** 1–200 characters, not only whitespace */
  name: string
  /** 1–300 characters, not only whitespace */
  address: string
  /** must equal the id in the path */
  id?: number
  /** ignored */
  links?: unknown[]
}

export type LocationPatch = {
  /** 1–200 characters, not only whitespace */
  name?: string
  /** 1–300 characters, not only whitespace */
  address?: string
}

export type PagingBody = {
  /** default 1 */
  page?: number
  /** default 20, at most 100 (MAX_PER_PAGE) */
  per_page?: number
}

export type EventsQueryBody = {
  /** default 1 */
  page?: number
  /** default 20, at most 100 (MAX_PER_PAGE) */
  per_page?: number
  /** only events at or after this instant */
  from?: string
  /** only events before this instant */
  to?: string
  /** only events at this location */
  location_id?: number
  /** only events whose title contains it, both lower-cased as JavaScript does */
  q?: string
}

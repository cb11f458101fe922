// JSON Schemas of every representation and request body. One schema gives validation (Ajv),
// serialization in field order (fast-json-stringify), static types and, later, OpenAPI.
import { type Static, Type } from 'typebox'

export const maxId = Number.MAX_SAFE_INTEGER

export const Link = Type.Object(
  {
    uri: Type.String({ description: 'path of the linked resource, relative to the base URL' }),
    rel: Type.String({ description: 'space-separated relation names' }),
    type: Type.String({ description: 'media type of the linked resource, without +json' }),
  },
  { additionalProperties: false },
)
export type Link = Static<typeof Link>

const Id = Type.Integer({ minimum: 1, maximum: maxId })

export const Title = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: '1–200 characters, not only whitespace',
})

export const DateTime = Type.String({
  format: 'date-time',
  maxLength: 64,
  description: 'RFC 3339 date-time; returned in UTC with a trailing Z',
  examples: ['2026-12-04T19:30:00Z'],
})

export const Event = Type.Object(
  {
    links: Type.Array(Link),
    id: Id,
    title: Type.String(),
    date: Type.String(),
  },
  { additionalProperties: false },
)
export type EventRepresentation = Static<typeof Event>

export const EventCollection = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    events: Type.Array(Event),
  },
  { additionalProperties: false },
)
export type EventCollectionRepresentation = Static<typeof EventCollection>

export const Location = Type.Object(
  {
    links: Type.Array(Link),
    id: Id,
    name: Type.String(),
    address: Type.String(),
  },
  { additionalProperties: false },
)
export type LocationRepresentation = Static<typeof Location>

export const FieldError = Type.Object(
  {
    pointer: Type.String({ description: 'JSON Pointer (RFC 6901) into the request body' }),
    detail: Type.String(),
  },
  { additionalProperties: false },
)

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    errors: Type.Optional(Type.Array(FieldError)),
  },
  { additionalProperties: false },
)
export type Problem = Static<typeof Problem>

/** POST /events */
export const EventCreate = Type.Object(
  { title: Title, date: DateTime, location_id: Id },
  { additionalProperties: false },
)
export type EventCreate = Static<typeof EventCreate>

/** PUT /events/<id>: the editable fields, and optionally `id` and `links` so a GET can be PUT back. */
export const EventReplace = Type.Object(
  {
    title: Title,
    date: DateTime,
    id: Type.Optional(Type.Integer({ description: 'must equal the id in the path' })),
    links: Type.Optional(Type.Array(Type.Unknown(), { description: 'ignored' })),
  },
  { additionalProperties: false },
)
export type EventReplace = Static<typeof EventReplace>

/** PATCH /events/<id>: a JSON merge patch (RFC 7396); none of the fields may be removed (null). */
export const EventPatch = Type.Object(
  {
    title: Type.Optional(Title),
    date: Type.Optional(DateTime),
    location_id: Type.Optional(Id),
  },
  { additionalProperties: false },
)
export type EventPatch = Static<typeof EventPatch>

const pagingFields = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: maxId, description: 'default 1' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, description: 'default 20, at most 100' })),
}

/** A paging body: `page` and `per_page`. */
export const PagingBody = Type.Object(pagingFields, { additionalProperties: false })
export type PagingBody = Static<typeof PagingBody>

/** The body of GET and QUERY /events: paging, and which events to find (CONTRACT.md §3). */
export const EventsQueryBody = Type.Object(
  {
    ...pagingFields,
    from: Type.Optional({ ...DateTime, description: 'only events at or after this instant' }),
    to: Type.Optional({ ...DateTime, description: 'only events before this instant' }),
    location_id: Type.Optional({ ...Id, description: 'only events at this location' }),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'only events whose title contains it, both lower-cased as JavaScript does',
      }),
    ),
  },
  { additionalProperties: false },
)
export type EventsQueryBody = Static<typeof EventsQueryBody>

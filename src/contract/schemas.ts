// JSON Schemas of every representation and request body. One schema gives validation (Ajv),
// static types, OpenAPI, and the check of every answer in the contract tests (bodies themselves
// are written by JSON.stringify: app.ts).
import { type Static, Type } from 'typebox'
import { dateTimePattern } from '../domain/dates.ts'
import { maxPage } from '../domain/paging.ts'

export const maxId = Number.MAX_SAFE_INTEGER

/** The most links a representation has (the entry point's four), with room to grow. */
export const maxLinks = 16
/** The most field errors a problem lists (http/problems.ts keeps the first ones). */
export const maxFieldErrors = 32
/** The largest MAX_PER_PAGE (config.ts); the document states the configured one (http/openapi.ts). */
export const largestPerPage = 10_000

export const Link = Type.Object(
  {
    uri: Type.String({ description: 'path of the linked resource, relative to the base URL' }),
    rel: Type.String({ description: 'space-separated relation names' }),
    type: Type.String({
      description: 'media type of the linked resource; a +json type without its +json suffix',
    }),
  },
  { additionalProperties: false },
)
export type Link = Static<typeof Link>

const Id = Type.Integer({ minimum: 1, maximum: maxId, format: 'int64' })

/** What only the service sets in a representation (JSON Schema `readOnly`; the relation docs say so). */
const links = Type.Array(Link, {
  readOnly: true,
  maxItems: maxLinks,
  description: 'the resource itself and what it relates to',
})
const readOnlyId = Type.Integer({
  ...Id,
  readOnly: true,
  description: 'assigned by the service, never reused',
})

/**
 * "Not only whitespace" (CONTRACT.md §2), as one JSON Schema pattern: at least one character that
 * is neither whitespace nor a format character (Unicode category Cf: U+200B ZERO WIDTH SPACE,
 * U+200C/D, U+2060 WORD JOINER, U+FEFF…), so a text nobody can see is refused like a blank one.
 * An ECMA-262 expression with a property escape, so it needs the `u` flag: Ajv (8) compiles
 * patterns with it (`unicodeRegExp`, on by default), as JSON Schema 2020-12 §6.4 asks.
 */
export const visibleText = '[^\\s\\p{Cf}]'

export const Title = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: visibleText,
  description: '1–200 characters, not only whitespace',
})

/** A location's name: the same rule as an event's title. */
export const LocationName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: visibleText,
  description: '1–200 characters, not only whitespace',
  examples: ['Town Hall'],
})

export const LocationAddress = Type.String({
  minLength: 1,
  maxLength: 300,
  pattern: visibleText,
  description: '1–300 characters, not only whitespace',
  examples: ['1 Market Square'],
})

/**
 * An RFC 3339 date-time as the service takes it (domain/dates.ts): `format` alone would admit leap
 * seconds, finer than millisecond precision and year 0000, so `pattern` says what is refused.
 */
export const DateTime = Type.String({
  format: 'date-time',
  pattern: dateTimePattern,
  maxLength: 64,
  description:
    'RFC 3339 date-time, `Z` or an offset, at most milliseconds (further digits only zeros), in years 0100–9999 also in UTC; returned in UTC with a trailing Z',
  examples: ['2026-12-04T19:30:00Z'],
})

export const Event = Type.Object(
  {
    links,
    id: readOnlyId,
    title: Type.String(),
    date: Type.String({
      format: 'date-time',
      pattern: dateTimePattern,
      description: 'in UTC with a trailing Z',
    }),
  },
  { additionalProperties: false },
)
export type EventRepresentation = Static<typeof Event>

export const EventCollection = Type.Object(
  {
    total: Type.Integer({ minimum: 0, maximum: maxId, format: 'int64' }),
    events: Type.Array(Event, { maxItems: largestPerPage }),
  },
  { additionalProperties: false },
)
export type EventCollectionRepresentation = Static<typeof EventCollection>

export const Location = Type.Object(
  {
    links,
    id: readOnlyId,
    name: Type.String(),
    address: Type.String(),
  },
  { additionalProperties: false },
)
export type LocationRepresentation = Static<typeof Location>

export const LocationCollection = Type.Object(
  {
    total: Type.Integer({ minimum: 0, maximum: maxId, format: 'int64' }),
    locations: Type.Array(Location, { maxItems: largestPerPage }),
  },
  { additionalProperties: false },
)
export type LocationCollectionRepresentation = Static<typeof LocationCollection>

/** GET /: the links a client starts from (CONTRACT.md §2, entry point). */
export const EntryPoint = Type.Object(
  { links: Type.Array(Link, { maxItems: maxLinks }) },
  { additionalProperties: false },
)
export type EntryPointRepresentation = Static<typeof EntryPoint>

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
    status: Type.Integer({ minimum: 400, maximum: 599, format: 'int32' }),
    detail: Type.String(),
    errors: Type.Optional(Type.Array(FieldError, { maxItems: maxFieldErrors })),
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

/** What a PUT takes beside the editable fields, so that a representation can be fetched, edited and PUT back. */
const putBack = {
  id: Type.Optional(Type.Integer({ ...Id, description: 'must equal the id in the path' })),
  links: Type.Optional(Type.Array(Type.Unknown(), { maxItems: maxLinks, description: 'ignored' })),
}

/** PUT /events/<id>: the editable fields, and optionally `id` and `links`. */
export const EventReplace = Type.Object(
  { title: Title, date: DateTime, ...putBack },
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

/** POST /locations */
export const LocationCreate = Type.Object(
  { name: LocationName, address: LocationAddress },
  { additionalProperties: false },
)
export type LocationCreate = Static<typeof LocationCreate>

/** PUT /locations/<id>: both fields, and optionally `id` and `links`. */
export const LocationReplace = Type.Object(
  { name: LocationName, address: LocationAddress, ...putBack },
  { additionalProperties: false },
)
export type LocationReplace = Static<typeof LocationReplace>

/** PATCH /locations/<id>: a JSON merge patch (RFC 7396); neither field may be removed (null). */
export const LocationPatch = Type.Object(
  { name: Type.Optional(LocationName), address: Type.Optional(LocationAddress) },
  { additionalProperties: false },
)
export type LocationPatch = Static<typeof LocationPatch>

/**
 * per_page: its maximum is MAX_PER_PAGE (default 100), a setting, checked by domain/paging.ts; the
 * document states the configured one in place of this bound (http/openapi.ts).
 */
const PerPage = Type.Integer({
  minimum: 1,
  maximum: largestPerPage,
  format: 'int32',
  description: 'default 20, at most 100 (MAX_PER_PAGE)',
})

const pagingFields = {
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: maxPage, format: 'int32', description: 'default 1' }),
  ),
  per_page: Type.Optional(PerPage),
}

/** A paging body, `page` and `per_page`: GET /locations. */
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

const upOrDown = Type.Union([Type.Literal('up'), Type.Literal('down')])

/**
 * GET /health/live and /health/ready. Readiness has one flat entry per dependency in `checks`: the
 * database (always `up` in a 200: otherwise the answer is a 503 problem) and, only when REDIS_URL
 * is set, Redis; `details` says in words what a state means where there is more to say.
 */
export const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('live'), Type.Literal('ready')]),
    checks: Type.Optional(
      Type.Object({ database: upOrDown, redis: Type.Optional(upOrDown) }, { additionalProperties: false }),
    ),
    details: Type.Optional(
      Type.Object({ redis: Type.Optional(Type.String()) }, { additionalProperties: false }),
    ),
    // With DATABASE_READ_URL: each replica, whether it serves reads (`up`) and its lag.
    replicas: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String(),
            state: Type.Union(
              ['up', 'lagging', 'down', 'starting', 'not-a-replica'].map((state) => Type.Literal(state)),
            ),
            lag_ms: Type.Optional(Type.Number()),
          },
          { additionalProperties: false },
        ),
        // As many as DATABASE_READ_URL names; a limit so that clients can bound what they read.
        { maxItems: 100 },
      ),
    ),
  },
  { additionalProperties: false },
)

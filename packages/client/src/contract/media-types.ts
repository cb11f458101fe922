// The wire vocabulary. The media types are the version (CONTRACT.md §9): a breaking change gets a
// new type served beside these, never a change to them.

export const mediaTypes = {
  events: 'application/vnd.service.events+json',
  event: 'application/vnd.service.event+json',
  location: 'application/vnd.service.location+json',
  locations: 'application/vnd.service.locations+json',
  api: 'application/vnd.service.api+json',
  problem: 'application/problem+json',
  json: 'application/json',
  mergePatch: 'application/merge-patch+json',
  /** The change feed of GET /events (CONTRACT.md §7). */
  eventStream: 'text/event-stream',
  /** The browsable view of every resource, offered last: never a default (CONTRACT.md §1). */
  html: 'text/html',
} as const

/** Link `type` values name the media type without its `+json` suffix (seed §2, Link). */
export const linkTypes = {
  event: 'application/vnd.service.event',
  events: 'application/vnd.service.events',
  location: 'application/vnd.service.location',
  locations: 'application/vnd.service.locations',
  /** GET /openapi.json also answers `application/vnd.oai.openapi+json` (and application/json). */
  openApi: 'application/vnd.oai.openapi',
} as const

export const relations = {
  event: '/rel/event',
  events: '/rel/events',
  location: '/rel/location',
  locations: '/rel/locations',
} as const

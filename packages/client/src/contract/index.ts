// `@event-resource-service/client/contract`: the wire vocabulary both sides use. The server imports
// the media types and the signature profile from here (one source); the representation types are
// written from the server's TypeBox schemas (representations.ts says how).
export { linkTypes, mediaTypes, relations } from './media-types.ts'
export type * from './representations.ts'
export * from './signature-profile.ts'

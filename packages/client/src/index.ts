// event-resource-service/client: a typed client of the Event Resource Service (README, "Client").

export type { Change, ChangeFeedOptions } from './change-feed.ts'
export {
  type ClientOptions,
  type EventQuery,
  EventServiceClient,
  Events,
  type LocationQuery,
  Locations,
} from './client.ts'
export { mediaTypes } from './contract/media-types.ts'
export type {
  EntryPointRepresentation,
  EventCollectionRepresentation,
  EventCreate,
  EventPatch,
  EventReplace,
  EventRepresentation,
  Link,
  LocationCollectionRepresentation,
  LocationCreate,
  LocationPatch,
  LocationReplace,
  LocationRepresentation,
  Problem,
} from './contract/representations.ts'
export {
  ClientError,
  isPreconditionFailed,
  NetworkError,
  ProblemError,
  UnexpectedResponseError,
} from './errors.ts'
export type { CreateOptions, Page, PageRelation, WriteOptions } from './resource.ts'
export { type SignedFields, type SignRequestInput, signRequest } from './sign-request.ts'
export type { Credentials } from './transport.ts'

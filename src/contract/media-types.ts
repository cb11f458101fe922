// The wire vocabulary lives in the client package (packages/client/src/contract/media-types.ts),
// which the server depends on: one source for both sides. Re-exported here so that the server's
// modules keep importing their contract from contract/.
export { linkTypes, mediaTypes, relations } from '@event-resource-service/client/contract'

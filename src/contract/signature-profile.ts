// The signing profile lives in the client package (packages/client/src/contract/
// signature-profile.ts), which the server depends on: one source for the side that signs and the
// side that verifies. Re-exported here so that the server's modules keep importing it from contract/.
export {
  type CoveredComponent,
  componentsWithBody,
  componentsWithoutBody,
  coveredComponents,
  legacySignatureTag,
  maxClockSkewSeconds,
  maxSignatureAgeSeconds,
  nonceLifetimeSeconds,
  nonceSyntax,
  type ProtectedField,
  protectedFields,
  type SignatureParameter,
  serializeSignatureParams,
  serializeString,
  signatureAlgorithm,
  signatureBase,
  signatureTag,
  signatureTags,
} from '@event-resource-service/client/contract'

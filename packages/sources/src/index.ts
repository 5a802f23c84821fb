export { defineSource, type IngestEvent, type Source, type SourceAuth, type SourceDefinition } from './define-source';
export type { SignatureScheme, SignatureVerifier, SourceHeaders, Verification } from './schemes/signature-scheme';
export { standardWebhooks, standardWebhookId } from './schemes/standard-webhooks';
export { timestampedHmac } from './schemes/timestamped-hmac';
export { hmacHex, type HmacHexOptions } from './schemes/hmac-hex';
export { builtInSources } from './presets/index';
export { equalsSecret } from './schemes/constant-time';

export { createClient } from './client.js';
export type {
  BatchCalls,
  BatchResult,
  Contact,
  ContactKey,
  IdentifyInput,
  SendEmailInput,
  SendEmailResult,
  TrackInput,
  TrackResult,
  WaymarkCalls,
  WaymarkClient,
  WaymarkClientOptions,
} from './client.js';
export type { EventName, EventProperties, JsonObject, TemplateData, TemplateKey, WaymarkEvents, WaymarkTemplates } from './registry.js';
export type { RequestOptions } from './transport.js';
export { WaymarkError } from './waymark-error.js';

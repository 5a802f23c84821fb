import type { EventName, EventProperties, JsonObject, TemplateData, TemplateKey } from './registry.js';
import { post, type RequestOptions, type Transport } from './transport.js';

/** Who: the person's id in your product (`userId`), their address (`email`), or both. */
export type ContactKey = { userId: string; email?: string } | { email: string; userId?: string };

/** `properties` (or `data`) may be left out when none of its own properties is required. */
type Field<Key extends string, Value> = Partial<Value> extends Value ? { [K in Key]?: Value } : { [K in Key]: Value };

export type TrackInput<P> = ContactKey &
  Field<'properties', P> & {
    /** merged onto the contact (not the event) */
    contactProperties?: JsonObject;
    /** list key → subscribed */
    lists?: Record<string, boolean>;
    /** when it happened (default: when the api receives it) */
    occurredAt?: Date | string;
  };

export type IdentifyInput = ContactKey & { properties?: JsonObject; lists?: Record<string, boolean> };

export type SendEmailInput<D> = Field<'data', D> & {
  to: string;
  /** the contact the send belongs to (its preferences and timeline) */
  userId?: string;
  /** the preference category (default: the template's) */
  category?: string;
};

export interface TrackResult {
  /** false when the idempotency key was seen before: nothing stored or routed again */
  stored: boolean;
  exits: { journeyId: string; stateId: string; exited: boolean }[];
  /** the event's lists could not be written: it is stored without them */
  listsError?: string;
  /** the event catalog quarantined the event: stored, no journey moved */
  quarantined?: true;
  catalogViolations?: { path: string; message: string }[];
}

export interface Contact {
  id: string;
  externalId: string | null;
  email: string | null;
  properties: JsonObject;
  firstSeenAt: string;
  lastSeenAt: string;
  createdAt: string;
  updatedAt: string;
}

export interface SendEmailResult {
  emailSendId: string | null;
  /** deferred: the send budget is taken until retryAt; call again with the same idempotency key then */
  status: 'sent' | 'skipped' | 'failed' | 'deferred';
  reason?: string;
  retryAt?: string;
}

/** The calls, as `batch` collects them. */
export interface WaymarkCalls {
  track<N extends EventName>(name: N, input: TrackInput<EventProperties<N>>, options?: RequestOptions): Promise<TrackResult>;
  identify(input: IdentifyInput, options?: RequestOptions): Promise<{ contact: Contact }>;
  sendEmail<K extends TemplateKey>(templateKey: K, input: SendEmailInput<TemplateData<K>>, options?: RequestOptions): Promise<SendEmailResult>;
}

/** The same calls, collected by `batch` to run later. */
export interface BatchCalls {
  track<N extends EventName>(name: N, input: TrackInput<EventProperties<N>>, options?: RequestOptions): void;
  identify(input: IdentifyInput, options?: RequestOptions): void;
  sendEmail<K extends TemplateKey>(templateKey: K, input: SendEmailInput<TemplateData<K>>, options?: RequestOptions): void;
}

export type BatchResult = { ok: true; value: TrackResult | { contact: Contact } | SendEmailResult } | { ok: false; error: unknown };

export interface WaymarkClient extends WaymarkCalls {
  /**
   * Runs the calls `collect` makes, a few at a time, each with its own idempotency key and
   * retries; resolves, in order, with each one's answer or error (one failure stops none of the others).
   */
  batch(collect: (calls: BatchCalls) => void, options?: { concurrency?: number }): Promise<BatchResult[]>;
}

export interface WaymarkClientOptions {
  /** an API key with the `ingest` scope */
  apiKey: string;
  /** the instance's API, e.g. https://waymark.example.com */
  baseUrl: string;
  /** per attempt, in milliseconds (default 10 000) */
  timeoutMs?: number;
  /** retries after the first attempt on a 429, a 5xx, a network error or a timeout (default 3) */
  retries?: number;
  /** another fetch (a test's, an instrumented one); default the global */
  fetch?: typeof fetch;
}

const contactKey = (input: ContactKey) => ({
  ...(input.userId === undefined ? {} : { userId: input.userId }),
  ...(input.email === undefined ? {} : { email: input.email }),
});

export function createClient(options: WaymarkClientOptions): WaymarkClient {
  const transport: Transport = {
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs ?? 10_000,
    retries: options.retries ?? 3,
    fetch: options.fetch ?? ((...args) => fetch(...args)),
  };
  const calls: WaymarkCalls = {
    track: (name, input, requestOptions) => {
      const { properties, contactProperties, lists, occurredAt } = input as TrackInput<JsonObject | undefined>;
      return post<TrackResult>(
        transport,
        '/v1/events',
        {
          name,
          ...contactKey(input),
          ...(properties === undefined ? {} : { eventProperties: properties }),
          ...(contactProperties === undefined ? {} : { contactProperties }),
          ...(lists === undefined ? {} : { lists }),
          ...(occurredAt === undefined ? {} : { timestamp: occurredAt instanceof Date ? occurredAt.toISOString() : occurredAt }),
        },
        requestOptions,
      );
    },
    identify: (input, requestOptions) =>
      post(
        transport,
        '/v1/contacts',
        {
          ...contactKey(input),
          ...(input.properties === undefined ? {} : { properties: input.properties }),
          ...(input.lists === undefined ? {} : { lists: input.lists }),
        },
        requestOptions,
      ),
    sendEmail: (templateKey, input, requestOptions) => {
      const { to, data, userId, category } = input as SendEmailInput<JsonObject | undefined>;
      return post<SendEmailResult>(
        transport,
        '/v1/emails',
        { templateKey, to, data: data ?? {}, ...(userId === undefined ? {} : { userId }), ...(category === undefined ? {} : { category }) },
        requestOptions,
      );
    },
  };
  return {
    ...calls,
    async batch(collect, batchOptions = {}) {
      const queued: (() => Promise<TrackResult | { contact: Contact } | SendEmailResult>)[] = [];
      collect({
        track: (...args) => void queued.push(() => calls.track(...args)),
        identify: (...args) => void queued.push(() => calls.identify(...args)),
        sendEmail: (...args) => void queued.push(() => calls.sendEmail(...args)),
      });
      const results: BatchResult[] = new Array<BatchResult>(queued.length);
      let next = 0;
      const worker = async () => {
        while (next < queued.length) {
          const index = next++;
          try {
            results[index] = { ok: true, value: await queued[index]!() };
          } catch (error) {
            results[index] = { ok: false, error };
          }
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(batchOptions.concurrency ?? 4, queued.length)) }, worker));
      return results;
    },
  };
}

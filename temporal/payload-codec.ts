import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
// a CommonJS module whose named exports Node's ESM loader cannot see: take its default export
import proto from '@temporalio/proto';
import type { EncryptionKey } from '@waymark/core/config/encryption-keys';
import { AppError, badRequest } from '@waymark/core/errors/app-error';
import { redactSecretsIn, secretValuesUnder } from '@waymark/email/secret-props';
import { openBytes, sealBytes } from '@waymark/core/tokens/sealed-bytes';

const ENCODING = 'binary/encrypted';
const KEY_ID = 'encryption-key-id';
const { Payload: PayloadMessage } = proto.temporal.api.common.v1;
const text = new TextEncoder();
const read = new TextDecoder();

/**
 * Seals every payload a run's history holds (its input, activity inputs and results, signals,
 * queries, memos) with AES-256-GCM under the first of ENCRYPTION_KEYS, and opens them with
 * whichever key their `encryption-key-id` names (docs/security.md, "What is kept secret,
 * and where"). A payload written before the keys were set carries no such encoding and passes through,
 * so turning the codec on for an installation with runs under way needs no migration.
 */
export class EncryptionCodec implements PayloadCodec {
  /** `keys` may be empty where nothing is sealed, only opened (openHistory): every sealed payload is then refused, naming its key */
  constructor(private readonly keys: readonly EncryptionKey[]) {}

  // async so that a payload that cannot be opened rejects, as the SDK expects, rather than throws
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.seal(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.open(payload));
  }

  private seal(payload: Payload): Payload {
    const { keyId, data } = sealBytes(this.keys, PayloadMessage.encode(payload).finish(), 'Temporal payload');
    return { metadata: { encoding: text.encode(ENCODING), [KEY_ID]: text.encode(keyId) }, data };
  }

  /** `payload` as its converter reads it: opened when sealed, as it is otherwise. */
  open(payload: Payload): Payload {
    const encoding = payload.metadata?.encoding;
    if (encoding === undefined || encoding === null || read.decode(encoding) !== ENCODING) return payload;
    const idBytes = payload.metadata?.[KEY_ID];
    const id = idBytes === undefined || idBytes === null ? '' : read.decode(idBytes);
    return PayloadMessage.decode(openBytes(this.keys, id, payload.data ?? new Uint8Array(), 'Temporal payload'));
  }
}

/**
 * Where the SDK loads `failureConverter` (failure-converter.ts) from, in a worker's main thread, in
 * its workflow bundle and in every client: the file `npm run build` compiles beside the processes
 * (dist/temporal/failure-converter.js), else the source. Seen from this file in the source tree the
 * built path names no file, as with the workflow bundles (apps/worker/src/workflow-bundle.ts).
 */
export function failureConverterPath(): string {
  const built = fileURLToPath(new URL('../temporal/failure-converter.js', import.meta.url));
  return existsSync(built) ? built : createRequire(import.meta.url).resolve('@waymark/temporal/failure-converter');
}

/**
 * The data converter of every client, worker and replay of this installation: with keys, the codec,
 * and failures whose message and stack travel as a payload it seals; without, Temporal's default
 * (docs/security.md). A workflow bundle built ahead of time carries the failure converter whatever
 * the keys (workflow-bundle.ts): a failure it encodes without a codec is a plain payload every
 * reader opens.
 */
export function dataConverterFor(keys: readonly EncryptionKey[] | undefined): { dataConverter?: DataConverter } {
  if (keys === undefined || keys.length === 0) return {};
  return { dataConverter: { payloadCodecs: [new EncryptionCodec(keys)], failureConverterPath: failureConverterPath() } };
}

/** A payload as Temporal's JSON carries it, and its Web UI posts it to a codec server: bytes as base64. */
export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/**
 * Opens the Temporal Web UI's payloads (a codec server's `/decode`, docs/deploy.md "Secrets"): each
 * sealed one with the key its `encryption-key-id` names, the rest as they are. A payload that
 * claims to be sealed but does not open (not sealed by this installation, or altered) throws a 400;
 * one sealed under a key not held, a 503 naming it.
 */
export function openJsonPayloads(payloads: readonly JsonPayload[], keys: readonly EncryptionKey[] | undefined): JsonPayload[] {
  const codec = new EncryptionCodec(keys ?? []);
  return payloads.map((json, index) => {
    const payload: Payload = {
      metadata: Object.fromEntries(Object.entries(json.metadata ?? {}).map(([name, value]) => [name, Buffer.from(value, 'base64')])),
      data: Buffer.from(json.data ?? '', 'base64'),
    };
    let opened: Payload;
    try {
      opened = codec.open(payload);
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw badRequest(`payloads[${index}] is marked sealed but does not open under ENCRYPTION_KEYS (not sealed by this installation, or altered)`);
    }
    return {
      metadata: Object.fromEntries(
        Object.entries(opened.metadata ?? {}).map(([name, value]) => [name, Buffer.from(value ?? new Uint8Array()).toString('base64')]),
      ),
      data: Buffer.from(opened.data ?? new Uint8Array()).toString('base64'),
    };
  });
}

const JSON_PLAIN_BASE64 = Buffer.from('json/plain').toString('base64');

/**
 * The value a payload in Temporal's JSON form holds when it is a JSON one (`json/plain`, as the
 * default converter writes it; base64 as the JSON form carries bytes), else undefined. Throws
 * (SyntaxError) when it says JSON but its data is not.
 */
export function jsonPlainValue(payload: { metadata?: unknown; data?: unknown }): { value: unknown } | undefined {
  const metadata = payload.metadata as Record<string, unknown> | undefined;
  if (metadata?.encoding !== JSON_PLAIN_BASE64 || typeof payload.data !== 'string') return undefined;
  return { value: JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) as unknown };
}

/**
 * The opened payloads as they may be shown (docs/security.md): in each JSON one, every prop a
 * template declares secret is redacted, and so is its value wherever else these payloads hold it
 * (the event property a journey took a link from, a failure's text), as an exported history is.
 */
export function redactSecretProps(payloads: readonly JsonPayload[], secretKeys: ReadonlySet<string>): JsonPayload[] {
  const decoded = payloads.map((payload, index) => {
    try {
      return jsonPlainValue(payload);
    } catch {
      throw badRequest(`payloads[${index}] is marked json/plain but does not hold JSON`);
    }
  });
  const secrets = new Set<string>();
  for (const json of decoded) if (json !== undefined) secretValuesUnder(json.value, secretKeys, secrets);
  return payloads.map((payload, index) => {
    const json = decoded[index];
    if (json === undefined) return payload;
    return { ...payload, data: Buffer.from(JSON.stringify(redactSecretsIn(json.value, secretKeys, secrets))).toString('base64') };
  });
}

type Node = Record<string, unknown>;
const isPayload = (value: unknown): value is Payload =>
  typeof value === 'object' && value !== null && !ArrayBuffer.isView(value) && typeof (value as Node).metadata === 'object' && 'data' in (value as Node);

/**
 * Opens, in place, every sealed payload of a history fetched from Temporal (fetchHistory hands
 * back what the server stores): the journeys check reads inputs and markers from it, replays it
 * and exports it, all as plain JSON payloads. A sealed payload whose key is not held (or no keys
 * at all) throws, naming the key: replaying it sealed would report every run as incompatible.
 */
export function openHistory<T extends object>(history: T, keys: readonly EncryptionKey[] | undefined): T {
  const codec = new EncryptionCodec(keys ?? []);
  const walk = (node: Node | unknown[]): void => {
    for (const [field, value] of Object.entries(node)) {
      if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) continue;
      if (isPayload(value)) (node as Node)[field] = codec.open(value);
      else walk(value as Node);
    }
  };
  walk(history as Node);
  return history;
}

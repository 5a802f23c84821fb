import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import type { EncryptionKey } from '@waymark/core/config/encryption-keys';
import { describe, expect, it } from 'vitest';
import { EncryptionCodec, openHistory } from './payload-codec';

const key = (id: string, byte: number): EncryptionKey => ({ id, key: new Uint8Array(32).fill(byte) });
const NEW = key('2026-11', 7);
const OLD = key('2026-01', 9);
const text = (payload: Payload) => Buffer.from(payload.data ?? []).toString('utf8');
const meta = (payload: Payload, name: string) => Buffer.from(payload.metadata?.[name] ?? []).toString('utf8');
const input = { userEmail: 'ada@example.com', data: { signInUrl: 'https://app.example.com/magic?token=s3cret' } };

describe('EncryptionCodec', () => {
  it('seals a payload under the first key (its id beside it) and opens it back to the same value', async () => {
    const codec = new EncryptionCodec([NEW, OLD]);
    const plain = defaultPayloadConverter.toPayload(input);
    const [sealed] = await codec.encode([plain]);
    expect(meta(sealed!, 'encoding')).toBe('binary/encrypted');
    expect(meta(sealed!, 'encryption-key-id')).toBe('2026-11');
    expect(text(sealed!)).not.toContain('ada@example.com');
    expect(text(sealed!)).not.toContain('s3cret');
    const [opened] = await codec.decode([sealed!]);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(input);
  });

  it('seals the same value differently each time (a fresh nonce per payload)', async () => {
    const codec = new EncryptionCodec([NEW]);
    const [a, b] = await codec.encode([defaultPayloadConverter.toPayload(input), defaultPayloadConverter.toPayload(input)]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  it('after a rotation opens what the old key sealed, and seals with the new one', async () => {
    const [before] = await new EncryptionCodec([OLD]).encode([defaultPayloadConverter.toPayload(input)]);
    const rotated = new EncryptionCodec([NEW, OLD]);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([before!]))[0]!)).toEqual(input);
    expect(meta((await rotated.encode([defaultPayloadConverter.toPayload(1)]))[0]!, 'encryption-key-id')).toBe('2026-11');
  });

  it('passes through a payload written before the keys were set', async () => {
    const plain = defaultPayloadConverter.toPayload(input);
    expect(await new EncryptionCodec([NEW]).decode([plain])).toEqual([plain]);
  });

  it('refuses a payload whose key it no longer holds, naming the key id, and one altered on the way', async () => {
    const [sealed] = await new EncryptionCodec([OLD]).encode([defaultPayloadConverter.toPayload(input)]);
    await expect(new EncryptionCodec([NEW]).decode([sealed!])).rejects.toThrow('sealed under key "2026-01", which ENCRYPTION_KEYS does not hold');
    const altered = Buffer.from(sealed!.data!);
    altered[20] = (altered[20] ?? 0) ^ 1;
    await expect(new EncryptionCodec([OLD]).decode([{ ...sealed!, data: new Uint8Array(altered) }])).rejects.toThrow();
    // the same id under other key bytes: the tag does not match
    await expect(new EncryptionCodec([key('2026-01', 8)]).decode([sealed!])).rejects.toThrow();
  });
});

describe('openHistory', () => {
  it('opens every sealed payload wherever the history holds one (lists, maps), and leaves the rest', async () => {
    const codec = new EncryptionCodec([NEW]);
    const [a, b] = await codec.encode([defaultPayloadConverter.toPayload(input), defaultPayloadConverter.toPayload('memo')]);
    const searchAttribute = defaultPayloadConverter.toPayload(['ada']);
    const history = {
      events: [
        { eventId: 1, workflowExecutionStartedEventAttributes: { input: { payloads: [a] }, memo: { fields: { note: b } } } },
        { eventId: 2, upsertWorkflowSearchAttributesEventAttributes: { searchAttributes: { indexedFields: { WaymarkUserId: searchAttribute } } } },
      ],
    };
    openHistory(history, [NEW]);
    const started = history.events[0]!.workflowExecutionStartedEventAttributes!;
    expect(defaultPayloadConverter.fromPayload(started.input.payloads[0]!)).toEqual(input);
    expect(defaultPayloadConverter.fromPayload(started.memo.fields.note!)).toBe('memo');
    expect(history.events[1]!.upsertWorkflowSearchAttributesEventAttributes!.searchAttributes.indexedFields.WaymarkUserId).toBe(searchAttribute);
  });

  it('without keys leaves a plain history as it is, and refuses a sealed one naming its key', async () => {
    const plain = { events: [{ input: { payloads: [defaultPayloadConverter.toPayload(input)] } }] };
    expect(openHistory(plain, undefined)).toBe(plain);
    const [sealed] = await new EncryptionCodec([NEW]).encode([defaultPayloadConverter.toPayload(input)]);
    expect(() => openHistory({ events: [{ input: { payloads: [sealed] } }] }, undefined)).toThrow(
      'a Temporal payload is sealed under key "2026-11", which ENCRYPTION_KEYS does not hold',
    );
  });
});

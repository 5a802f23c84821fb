import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineSource, hmacHex, type Source } from '@waymark/sources';
import type { IngestInput } from '../../events/ingest';
import { receiveWebhook } from './receive-webhook';
import { createSourceRegistry } from './source-registry';

const SECRET = 'shh-this-is-the-secret';

const orders = defineSource({
  id: 'orders',
  auth: { type: 'signature', secret: 'ORDERS_WEBHOOK_SECRET', scheme: hmacHex({ header: 'x-sig' }) },
  schema: z.object({ id: z.string(), customer: z.object({ id: z.string(), email: z.string().optional() }), total: z.number() }),
  transform: (order) =>
    order.total === 0
      ? undefined
      : {
          event: 'order.placed',
          userId: order.customer.id,
          userEmail: order.customer.email,
          eventProperties: { total: order.total },
          idempotencyKey: order.id,
        },
});

function harness(sources: Source[] = [orders], secrets: Record<string, string> = { ORDERS_WEBHOOK_SECRET: SECRET }, budget = Infinity) {
  const ingested: IngestInput[] = [];
  const admitted: string[] = [];
  const warn = vi.fn();
  const deps = {
    sources: createSourceRegistry(sources, secrets),
    personCache: { rememberAndRecall: vi.fn(async () => undefined) },
    ingest: async (input: IngestInput) => {
      ingested.push(input);
      return {
        stored: true,
        eventId: 'e1',
        exits: [
          { journeyId: 'j', stateId: 's1', exited: true },
          { journeyId: 'k', stateId: 's2', exited: false },
        ],
      };
    },
    admit: async (sourceId: string) => {
      if (admitted.length >= budget) return false;
      admitted.push(sourceId);
      return true;
    },
    logger: { warn },
  };
  const deliver = (sourceId: string, body: string, headers: Record<string, string> = {}) =>
    receiveWebhook(deps, { sourceId, headers, rawBody: Buffer.from(body), unstorable: () => undefined });
  const sign = (body: string, secret = SECRET) => ({ 'x-sig': createHmac('sha256', secret).update(body).digest('hex') });
  return { deps, ingested, admitted, warn, deliver, sign };
}

describe('receiveWebhook', () => {
  it('verifies, validates, transforms and ingests with a source-scoped idempotency key; lists only the exited states', async () => {
    const { deliver, sign, ingested } = harness();
    const body = JSON.stringify({ id: 'o-1', customer: { id: 'c-1', email: 'c1@example.com' }, total: 12 });
    await expect(deliver('orders', body, sign(body))).resolves.toEqual({
      ok: true,
      event: 'order.placed',
      userId: 'c-1',
      exits: [{ journeyId: 'j', stateId: 's1' }],
    });
    expect(ingested).toEqual([
      { name: 'order.placed', userId: 'c-1', email: 'c1@example.com', eventProperties: { total: 12 }, idempotencyKey: 'orders:o-1', source: 'webhook' },
    ]);
  });

  it('answers in the contract order and logs the source and reason, never the secret or the body', async () => {
    const { deliver, sign, warn, ingested } = harness();
    const body = JSON.stringify({ id: 'o-2', customer: { id: 'c-2' }, total: 'twelve', note: 'private-body-content' });
    await expect(deliver('unknown', body, sign(body))).rejects.toMatchObject({ status: 404, message: 'Unknown webhook source' });
    await expect(deliver('orders', body, sign(body, 'wrong'))).rejects.toMatchObject({ status: 401 });
    await expect(deliver('orders', body, sign(body))).rejects.toMatchObject({ status: 400, message: expect.stringContaining('total') });
    await expect(deliver('orders', '{', sign('{'))).rejects.toMatchObject({ status: 400 });
    expect(ingested).toEqual([]);
    expect(warn.mock.calls.map(([fields]) => [fields.sourceId, fields.status])).toEqual([
      ['unknown', 404],
      ['orders', 401],
      ['orders', 400],
      ['orders', 400],
    ]);
    const logged = JSON.stringify(warn.mock.calls);
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain('private-body-content');
    expect(warn.mock.calls[1]![0].reason).toBe('no matching signature');
  });

  it('spends the source budget only for authenticated deliveries, and answers 429 once it is spent', async () => {
    const { deliver, sign, admitted, ingested, warn } = harness(undefined, undefined, 1);
    const body = JSON.stringify({ id: 'o-4', customer: { id: 'c-4' }, total: 3 });
    await expect(deliver('orders', body, sign(body, 'forged'))).rejects.toMatchObject({ status: 401 });
    expect(admitted).toEqual([]);
    await expect(deliver('orders', body, sign(body))).resolves.toMatchObject({ ok: true });
    await expect(deliver('orders', body, sign(body))).rejects.toMatchObject({ status: 429, message: 'Rate limit exceeded' });
    expect(admitted).toEqual(['orders']);
    expect(ingested).toHaveLength(1);
    expect(warn.mock.calls.at(-1)![0]).toMatchObject({ sourceId: 'orders', status: 429, reason: 'over the source rate limit' });
  });

  it('skips what the transform drops; a throwing or invalid transform is a 400, not a 500', async () => {
    const { deliver, sign } = harness();
    const zero = JSON.stringify({ id: 'o-3', customer: { id: 'c-3' }, total: 0 });
    await expect(deliver('orders', zero, sign(zero))).resolves.toEqual({ ok: true, skipped: true });

    const broken = defineSource({
      id: 'broken',
      auth: { type: 'match', secret: 'BROKEN_WEBHOOK_SECRET' },
      transform: (payload) => {
        if ((payload as { throw?: boolean }).throw) throw new Error('boom');
        return { event: '', eventProperties: {} };
      },
    });
    const other = harness([broken], { BROKEN_WEBHOOK_SECRET: 'b' });
    const bearer = { authorization: 'Bearer b' };
    await expect(other.deliver('broken', '{"throw":true}', bearer)).rejects.toMatchObject({
      status: 400,
      message: 'Source broken could not transform the payload',
    });
    await expect(other.deliver('broken', '{}', bearer)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('invalid event') });
  });

  it('an anonymous id stands in for a missing user and is kept in the properties', async () => {
    const anonymous = defineSource({
      id: 'anon',
      auth: { type: 'match', secret: 'ANON_WEBHOOK_SECRET' },
      transform: () => ({ event: 'visited', anonymousId: 'anon-1', eventProperties: {} }),
    });
    const { deliver, ingested } = harness([anonymous], { ANON_WEBHOOK_SECRET: 'a' });
    await expect(deliver('anon', '{}', { 'x-anon': 'a', authorization: 'Bearer a' })).resolves.toMatchObject({ userId: 'anon-1' });
    expect(ingested[0]).toMatchObject({ userId: 'anon-1', eventProperties: { anonymousId: 'anon-1' } });
  });
});

describe('a match source without its secret', () => {
  const open = defineSource({
    id: 'open',
    auth: { type: 'match', secret: 'OPEN_WEBHOOK_SECRET' },
    transform: () => ({ event: 'visited', userId: 'u-1', eventProperties: {} }),
  });

  it('refuses every request unless its *_WEBHOOK_OPEN variable opened it', async () => {
    const closed = harness([open], {});
    await expect(closed.deliver('open', '{}')).rejects.toMatchObject({ status: 401, message: 'Invalid webhook secret' });
    const deps = { ...closed.deps, sources: createSourceRegistry([open], {}, ['OPEN_WEBHOOK_SECRET']) };
    await expect(receiveWebhook(deps, { sourceId: 'open', headers: {}, rawBody: Buffer.from('{}'), unstorable: () => undefined })).resolves.toMatchObject({
      ok: true,
      userId: 'u-1',
    });
  });
});

describe('createSourceRegistry', () => {
  const preset = defineSource({ ...orders, id: 'preset', mountWhenSecretSet: true, auth: { ...orders.auth, secret: 'PRESET_WEBHOOK_SECRET' } });

  it('mounts a preset only when its secret is set; a team source always', () => {
    expect(
      createSourceRegistry([preset, orders], {})
        .list()
        .map((mounted) => mounted.source.id),
    ).toEqual(['orders']);
    expect(createSourceRegistry([preset], { PRESET_WEBHOOK_SECRET: 'x' }).find('preset')).toBeDefined();
  });

  it('refuses duplicate and reserved ids, and an undecodable secret without printing it', () => {
    expect(() => createSourceRegistry([orders, orders], {})).toThrow('defined twice');
    expect(() => createSourceRegistry([defineSource({ ...orders, id: 'email-provider' })], {})).toThrow('reserved');
    const clerkLike = defineSource({
      ...orders,
      id: 'svixy',
      auth: {
        type: 'signature',
        secret: 'SVIXY_WEBHOOK_SECRET',
        scheme: {
          name: 'strict',
          headers: [],
          prepare: () => {
            throw new Error('bad');
          },
        },
      },
    });
    expect(() => createSourceRegistry([clerkLike], { SVIXY_WEBHOOK_SECRET: 'whsec_ leaked-value' })).toThrow(/secret 1 in SVIXY_WEBHOOK_SECRET/);
    try {
      createSourceRegistry([clerkLike], { SVIXY_WEBHOOK_SECRET: 'leaked-value' });
    } catch (error) {
      expect((error as Error).message).not.toContain('leaked-value');
    }
  });

  it('defineSource refuses a bad id or a secret variable outside *_WEBHOOK_SECRET', () => {
    expect(() => defineSource({ ...orders, id: 'Bad Id' })).toThrow();
    expect(() => defineSource({ ...orders, auth: { type: 'match', secret: 'DATABASE_URL' } })).toThrow('_WEBHOOK_SECRET');
  });
});

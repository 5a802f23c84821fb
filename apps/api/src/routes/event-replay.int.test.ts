import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_MAX_LIMIT } from '@waymark/core/replays/replay-events';
import { startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** Issue 10: replay runs inside its request, so its size is bounded (documented maximum). */
describe('POST /v1/admin/events/replay is bounded', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
  });
  afterAll(() => api.close());

  const replay = (body: unknown) => api.request('POST', '/v1/admin/events/replay', { token: LEGACY, body });

  it(`refuses a limit or an id list above ${REPLAY_MAX_LIMIT} with 400`, async () => {
    expect(REPLAY_MAX_LIMIT).toBe(50);
    expect(await replay({ filter: { event: 'x' }, limit: REPLAY_MAX_LIMIT + 1 })).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('limit') },
    });
    expect(await replay({ filter: { event: 'x' }, limit: 1000 })).toMatchObject({ status: 400 });
    const ids = Array.from({ length: REPLAY_MAX_LIMIT + 1 }, () => randomUUID());
    expect(await replay({ eventIds: ids })).toMatchObject({ status: 400, body: { error: expect.stringContaining('eventIds') } });
  });

  it('replays at most the maximum by default, oldest first, and documents the bound', async () => {
    const userId = `replay-${randomUUID()}`;
    const base = Date.now() - 60 * 60 * 1000;
    const rows = Array.from({ length: REPLAY_MAX_LIMIT + 5 }, (_, i) => ({
      id: randomUUID(),
      userId,
      event: 'replay.bounded',
      properties: JSON.stringify({ i }),
      source: 'api',
      occurredAt: new Date(base + i * 1000),
    }));
    await api.deps.db.insertInto('events').values(rows).execute();
    const response = await replay({ filter: { userId, event: 'replay.bounded' } });
    expect(response).toMatchObject({ status: 200, body: { replayed: REPLAY_MAX_LIMIT, errors: [] } });
    const replayed = await api.deps.db.selectFrom('events').select('properties').where('userId', '=', userId).where('source', '=', 'replay').execute();
    expect(replayed.map((row) => (row.properties as { i: number }).i).sort((a, b) => a - b)).toEqual([...Array(REPLAY_MAX_LIMIT).keys()]);

    const document = await api.request('GET', '/openapi.json');
    const operation = document.body.paths['/v1/admin/events/replay'].post;
    expect(operation.description).toContain(`may not exceed ${REPLAY_MAX_LIMIT}`);
    expect(operation.requestBody.content['application/json'].schema.properties.limit.maximum).toBe(REPLAY_MAX_LIMIT);
  });
});

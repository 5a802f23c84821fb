import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const CONTACTS = 20_000;

/** `count` leaves of `in` lists on a nested property, `values` values each: the costliest property leaf there is. */
const inLeaves = (count: number, values: number) => ({
  all: Array.from({ length: count }, (_, leaf) => ({
    type: 'property',
    property: `plan.tier${leaf}`,
    operator: 'in',
    value: Array.from({ length: values }, (_, value) => `tier-${leaf}-${value}`),
  })),
});

/**
 * docs/segments.md, "Limits": a segment query is bounded in size (values across `in` lists),
 * time (SEGMENT_QUERY_TIMEOUT_MS) and concurrency (SEGMENT_QUERY_CONCURRENCY per key or person),
 * so a `read` key cannot starve the pool ingest uses; none of it is ever a 500.
 */
describe('security: segment queries are bounded', () => {
  let api: TestApi;
  const run = randomUUID().slice(0, 8);
  const readKeys: string[] = [];
  let ingestKey: string;

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, SEGMENT_QUERY_TIMEOUT_MS: '200', SEGMENT_QUERY_CONCURRENCY: '1' });
    const create = async (scopes: string[]) =>
      (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: `segq-${randomUUID()}`, scopes } })).body.key as string;
    for (let i = 0; i < 3; i++) readKeys.push(await create(['read']));
    ingestKey = await create(['ingest']);
    // enough contacts that the heavy segment below cannot finish within the test's 200 ms
    await sql`insert into contacts (external_id, properties)
      select ${`segq-${run}-`} || n, jsonb_build_object('run', ${run}::text, 'plan', jsonb_build_object('tier0', 'x' || n))
      from generate_series(1, ${CONTACTS}) as n`.execute(api.deps.db);
  });
  afterAll(async () => {
    await api?.deps.db.deleteFrom('contacts').where('externalId', 'like', `segq-${run}-%`).execute();
    await api?.close();
  });

  const preview = (conditions: unknown, token = readKeys[0]!) => api.request('POST', '/v1/admin/segments/preview', { token, body: { conditions } });

  it('a preview of 2,001 values across its in lists is a 400 naming the path', async () => {
    const over = await preview({ all: [...inLeaves(4, 500).all, { type: 'property', property: 'plan', operator: 'in', value: ['one'] }] });
    expect(over).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^conditions\.all\[4\]\.value: .*2000 values/) } });
  });

  it('the largest tree the old limits allowed (50 leaves of 500 values, past 65,535 bind parameters) is a 400, not a 500', async () => {
    expect(await preview(inLeaves(50, 500))).toMatchObject({ status: 400, body: { error: expect.stringContaining('2000 values') } });
    // and saving it is refused the same way
    const saved = await api.request('POST', '/v1/admin/segments', { token: LEGACY, body: { name: `segq-${run}`, conditions: inLeaves(50, 500) } });
    expect(saved.status).toBe(400);
  });

  it('a preview past SEGMENT_QUERY_TIMEOUT_MS is a 422 naming the costliest leaf kind, while ingest keeps answering 202', async () => {
    const heavy = { all: [{ type: 'property', property: 'run', operator: 'eq', value: run }, ...inLeaves(4, 250).all] };
    const [first, second, ingest] = await Promise.all([
      preview(heavy, readKeys[1]),
      preview(heavy, readKeys[2]),
      api.request('POST', '/v1/events', { token: ingestKey, body: { userId: `segq-${run}-1`, name: 'segq.probe' } }),
    ]);
    for (const answer of [first, second]) {
      expect(answer).toMatchObject({ status: 422, body: { error: expect.stringMatching(/^Segment too expensive: .*property/) } });
    }
    expect(ingest.status).toBe(202);
    expect((await api.request('POST', '/v1/events', { token: ingestKey, body: { userId: `segq-${run}-2`, name: 'segq.probe' } })).status).toBe(202);
  });

  it('more than SEGMENT_QUERY_CONCURRENCY previews at once from one key: 429 with Retry-After', async () => {
    const heavy = { all: [{ type: 'property', property: 'run', operator: 'eq', value: run }, ...inLeaves(4, 250).all] };
    const answers = await Promise.all([preview(heavy), preview(heavy), preview(heavy)]);
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    expect(answers.every((answer) => answer.status === 422 || answer.status === 429)).toBe(true);
    for (const answer of limited) {
      expect(answer.body.error).toMatch(/segment queries at once/);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // once they are done, the key may preview again
    expect((await preview({ type: 'property', property: 'run', operator: 'eq', value: `none-${run}` })).status).toBe(200);
  });
});

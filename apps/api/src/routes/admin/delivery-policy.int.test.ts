import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryPolicy } from '@waymark/journeys/delivery-policy';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('GET /v1/admin/delivery-policy (journeys/delivery-policy.ts)', () => {
  let api: TestApi;
  let readKey: string;
  let ingestKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    readKey = await issueApiKey(api, LEGACY, 'policy-reader', ['read']);
    ingestKey = await issueApiKey(api, LEGACY, 'policy-producer', ['ingest']);
  });
  afterAll(() => api.close());

  it("answers the installation's policy, read-only, naming its file", async () => {
    const answer = await api.request('GET', '/v1/admin/delivery-policy', { token: readKey });
    expect(answer.status).toBe(200);
    expect(answer.body.policy.source).toBe('journeys/delivery-policy.ts');
    // the required categories of journeys/categories.ts come exempt, whatever the file says
    expect(answer.body.policy.exempt).toEqual([...deliveryPolicy.exempt, 'transactional']);
    expect(answer.body.policy.quietHours).toEqual(deliveryPolicy.quietHours ?? null);
    expect(answer.body.policy.holdout).toEqual(deliveryPolicy.holdout ?? null);
    expect(answer.body.policy.caps).toEqual(
      deliveryPolicy.caps.map((cap) => ({ ...cap, description: `${cap.max} per ${cap.per} (${cap.category})`, everyCategory: false })),
    );
  });

  it('needs the read scope', async () => {
    expect((await api.request('GET', '/v1/admin/delivery-policy')).status).toBe(401);
    expect((await api.request('GET', '/v1/admin/delivery-policy', { token: ingestKey })).status).toBe(403);
    // read-only: the policy changes with a deploy
    expect((await api.request('PUT', '/v1/admin/delivery-policy', { token: LEGACY, body: {} })).status).toBe(405);
  });

  it("the program holdout's outcomes need the read scope, and answer 404 {error} under a policy that holds nobody out", async () => {
    const path = '/v1/admin/delivery-policy/holdout/outcomes';
    expect((await api.request('GET', path)).status).toBe(401);
    expect((await api.request('GET', path, { token: ingestKey })).status).toBe(403);
    const none = await api.request('GET', path, { token: readKey });
    expect(deliveryPolicy.holdout).toBeUndefined();
    expect(none.status).toBe(404);
    expect(none.body.error).toMatch(/no program holdout/);
    expect((await api.request('GET', `${path}?to=not-a-date`, { token: readKey })).status).toBe(400);
  });
});

import { randomUUID } from 'node:crypto';
import { loadConfig } from '@waymark/core/config/config';
import { openHistory } from '@waymark/temporal/payload-codec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../test/eventually';
import { journeyStatesOf } from '../../../test/journey-states';
import { issueApiKey, startTestApi, type TestApi } from '../../../test/test-api';
import { integrationEnv } from '../../../test/test-env';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** Every payload's bytes of a history as Temporal keeps it, as text: where an address or a link would show. */
const payloadText = (history: object) =>
  [...JSON.stringify(history).matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((match) => Buffer.from(match[1] ?? '', 'base64').toString('utf8')).join('\n');

describe("Temporal's history holds sealed payloads (docs/security.md)", () => {
  let api: TestApi;
  let ingestKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'producer', ['ingest']);
  });
  afterAll(() => api.close());

  it("a run's input, its email's data and its results are sealed under ENCRYPTION_KEYS; the worker opens them and sends", async () => {
    const keys = loadConfig(integrationEnv()).encryptionKeys;
    expect(keys?.length).toBeGreaterThan(0);
    const userId = `u-${randomUUID()}`;
    const email = `${userId}@example.com`;
    const firstName = `Zq${randomUUID().slice(0, 8)}`;
    const posted = await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name: 'user.signed_up', userId, email, eventProperties: { firstName } },
    });
    expect(posted.status, posted.text).toBe(202);
    // the welcome email went out with the first name: the worker opened what the api sealed
    const [state] = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 'welcome-series'),
      (rows) => rows[0]?.status === 'waiting' && rows[0].currentNodeId === 'sleep:2 days',
    );
    const sent = await api.deps.db.selectFrom('emailSends').select(['templateKey', 'data', 'toEmail']).where('journeyStateId', '=', state!.id).execute();
    expect(sent).toEqual([{ templateKey: 'welcome', toEmail: email, data: expect.objectContaining({ firstName }) }]);

    const stored = await api.deps.temporal.client.workflow.getHandle(state!.workflowId).fetchHistory();
    const kept = payloadText(stored);
    expect(kept).not.toContain(email);
    expect(kept).not.toContain(firstName);
    const sealed = Buffer.from('binary/encrypted').toString('base64');
    expect(JSON.stringify(stored)).toContain(sealed);
    // what stays readable: the search attributes runs are found by (Temporal cannot index a sealed value)
    const searchable = payloadText(
      stored.events?.flatMap(
        (event) => event.upsertWorkflowSearchAttributesEventAttributes ?? event.workflowExecutionStartedEventAttributes?.searchAttributes ?? [],
      ) ?? [],
    );
    expect(searchable).toContain(userId);
    // the same history opened with the keys: the values were there, sealed
    const opened = payloadText(openHistory(stored, keys));
    expect(opened).toContain(email);
    expect(opened).toContain(firstName);
    expect(JSON.stringify(stored)).not.toContain(sealed);
  }, 60_000);
});

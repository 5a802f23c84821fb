import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../test/eventually';
import { startInProcessWorker } from '../../../../test/in-process-worker';
import { journeyStatesOf } from '../../../../test/journey-states';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * docs/security.md, "Personal data and erasure": a batch enrollment accepted before a person's
 * erasure (or admin delete) but not yet dispatched must not enrol them after it. The api runs on a
 * task queue no worker polls yet, so the batch's run waits; the person is removed; then a worker
 * starts and the run dispatches the batch. Before the batch's users were kept where a removal
 * reaches them, they travelled in the run's Temporal input and the removed person was enrolled
 * again, their contact and trigger event stored anew.
 */
describe('a removal reaches the batch enrollments not yet dispatched', () => {
  let api: TestApi;
  let ingestKey: string;
  let adminKey: string;
  let worker: { stop: () => Promise<void> } | undefined;
  const taskQueue = `batch-removal-${randomUUID()}`;

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, TEMPORAL_TASK_QUEUE: taskQueue });
    ingestKey = await issueApiKey(api, LEGACY, 'batch-removal-ingest', ['ingest']);
    adminKey = await issueApiKey(api, LEGACY, 'batch-removal-admin', ['journey-admin']);
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
  });

  it('an erased and an admin-deleted person are not enrolled by a batch that runs after their removal; the others are', async () => {
    const run = randomUUID().slice(0, 8);
    const [erased, deleted, kept] = ['erased', 'deleted', 'kept'].map((who) => `batch-${who}-${run}`) as [string, string, string];
    for (const userId of [erased, deleted]) {
      // a contact to remove: an event no journey starts from
      const seen = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'page.viewed', userId, email: `${userId}@example.com` } });
      expect(seen.status, seen.text).toBe(202);
    }
    const user = (userId: string) => ({ userId, userEmail: `${userId}@example.com`, properties: { plan: 'pro' } });
    const batch = await api.request('POST', '/v1/admin/journeys/trial-conversion/enroll/batch', {
      token: LEGACY,
      body: { users: [user(erased), user(kept), user(deleted)] },
    });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.enrolled).toBe(3);

    const contactId = async (userId: string) => (await api.request('GET', `/v1/contacts/${encodeURIComponent(userId)}`, { token: ingestKey })).body.contact.id;
    const erasure = await api.request('DELETE', `/v1/contacts/${await contactId(erased)}`, { token: ingestKey });
    expect(erasure.status, erasure.text).toBe(200);
    const removal = await api.request('DELETE', `/v1/admin/contacts/${await contactId(deleted)}`, { token: adminKey });
    expect(removal.status, removal.text).toBe(200);

    worker = await startInProcessWorker({ taskQueue, name: 'batch-removal-worker' });
    await eventually(
      () => journeyStatesOf(api.deps.db, kept, 'trial-conversion'),
      (rows) => rows.length === 1,
      { timeoutMs: 60_000, what: 'the batch to enrol the person it still holds' },
    );
    const batchLeft = await api.deps.db.selectFrom('enrollBatchUsers').select('userId').where('userId', 'in', [erased, deleted, kept]).execute();
    expect(batchLeft).toEqual([]);
    for (const userId of [erased, deleted]) {
      expect(await journeyStatesOf(api.deps.db, userId, 'trial-conversion'), userId).toEqual([]);
      const contacts = await api.deps.db.selectFrom('contacts').select('id').where('externalId', '=', userId).execute();
      expect(contacts, `${userId}'s contact`).toEqual([]);
      const triggers = await api.deps.db.selectFrom('events').select('id').where('userId', '=', userId).where('event', '=', 'trial.started').execute();
      expect(triggers, `${userId}'s trigger event`).toEqual([]);
    }
  });
});

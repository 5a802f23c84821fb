import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../test/eventually';
import { journeyStatesOf } from '../../../../test/journey-states';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * docs/operations.md, "Contacts": a deleted or erased person is in no journey. A sign-up asleep in
 * welcome-series' two-day wait is exited by the removal and its run cancelled (a delete) or removed
 * from Temporal (an erasure), so the next email of the drip never goes out to someone who asked to
 * be forgotten.
 */
describe("a contact's delete or erasure ends its live journey runs", () => {
  let api: TestApi;
  let ingestKey: string;
  let adminKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'removal-ingest', ['ingest']);
    adminKey = await issueApiKey(api, LEGACY, 'removal-admin', ['journey-admin']);
  });
  afterAll(() => api?.close());

  it.each([
    { plane: 'data-plane erasure', path: '/v1/contacts', key: () => ingestKey, reason: 'contact_erased', temporal: 'deleted' },
    { plane: 'admin delete', path: '/v1/admin/contacts', key: () => adminKey, reason: 'contact_deleted', temporal: 'CANCELLED' },
  ])(
    '$plane: the run asleep after the welcome email is exited ($reason), $temporal in Temporal, and sends nothing more',
    async ({ path, key, reason, temporal }) => {
      const userId = `removed-${randomUUID()}`;
      const signedUp = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.signed_up', userId, email: `${userId}@example.com` } });
      expect(signedUp.status, signedUp.text).toBe(202);
      const [state] = await eventually(
        () => journeyStatesOf(api.deps.db, userId, 'welcome-series'),
        (rows) => rows[0]?.status === 'waiting' && rows[0].currentNodeId === 'sleep:2 days',
        { timeoutMs: 30_000, what: 'the welcome run to fall asleep after its first email' },
      );
      const handle = api.deps.temporal.client.workflow.getHandle(state!.workflowId);

      const contact = await api.request('GET', `/v1/contacts/${encodeURIComponent(userId)}`, { token: ingestKey });
      const removed = await api.request('DELETE', `${path}/${contact.body.contact.id}`, { token: key() });
      expect(removed.status, removed.text).toBe(200);

      const row = await api.deps.db.selectFrom('journeyStates').select(['status', 'exitedAt']).where('id', '=', state!.id).executeTakeFirstOrThrow();
      expect(row.status).toBe('exited');
      expect(row.exitedAt).not.toBeNull();
      const log = await api.deps.db
        .selectFrom('journeyLogs')
        .select('detail')
        .where('journeyStateId', '=', state!.id)
        .where('action', '=', 'exited')
        .executeTakeFirstOrThrow();
      expect(log.detail).toEqual({ reason });
      if (temporal === 'deleted') {
        // an erasure removes the run from Temporal, history and all (the 2-day timer never fires)
        await eventually(
          () =>
            handle.describe().then(
              () => 'still there',
              (error: unknown) => (error instanceof WorkflowNotFoundError ? 'deleted' : String(error)),
            ),
          (found) => found === 'deleted',
          { timeoutMs: 15_000, intervalMs: 100, what: 'the erased run to leave Temporal' },
        );
      } else {
        const closed = await eventually(
          () => handle.describe(),
          (description) => description.status.name !== 'RUNNING',
          { timeoutMs: 15_000, intervalMs: 50, what: 'the run to close after the removal' },
        );
        expect(closed.status.name).toBe('CANCELLED');
        const events = (await handle.fetchHistory()).events ?? [];
        expect(events.some((event) => event.timerFiredEventAttributes != null)).toBe(false);
      }
      const sends = await api.deps.db.selectFrom('emailSends').select('templateKey').where('journeyStateId', '=', state!.id).execute();
      expect(sends).toEqual([{ templateKey: 'welcome' }]);

      const audit = await api.deps.db
        .selectFrom('auditLogs')
        .select('detail')
        .where('resource', '=', 'contact')
        .where('action', '=', 'delete')
        .where('resourceId', '=', contact.body.contact.id)
        .executeTakeFirstOrThrow();
      expect(audit.detail).toMatchObject(temporal === 'deleted' ? { runsExited: 1, runsDeleted: 1 } : { runsExited: 1 });
    },
  );

  it('refuses a caller without the scope (403) or without a credential (401), and leaves the contact and its run alone', async () => {
    const userId = `refused-${randomUUID()}`;
    await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.signed_up', userId, email: `${userId}@example.com` } });
    const contact = await api.request('GET', `/v1/contacts/${encodeURIComponent(userId)}`, { token: ingestKey });
    const id = contact.body.contact.id;
    const readKey = await issueApiKey(api, LEGACY, 'removal-read', ['read']);
    // the erasure is the data plane's (ingest); the admin delete needs journey-admin
    for (const token of [readKey, adminKey]) expect((await api.request('DELETE', `/v1/contacts/${id}`, { token })).status).toBe(403);
    for (const token of [readKey, ingestKey]) expect((await api.request('DELETE', `/v1/admin/contacts/${id}`, { token })).status).toBe(403);
    expect((await api.request('DELETE', `/v1/contacts/${id}`)).status).toBe(401);
    expect((await api.request('DELETE', `/v1/admin/contacts/${id}`)).status).toBe(401);
    expect((await api.request('GET', `/v1/contacts/${id}`, { token: ingestKey })).status).toBe(200);
    const states = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 'welcome-series'),
      (rows) => rows.length === 1,
    );
    expect(states[0]!.status).not.toBe('exited');
  });
});

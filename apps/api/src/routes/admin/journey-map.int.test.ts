import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdoutArm } from '@waymark/journey';
import firstProject from '@waymark/journeys/first-project';
import { eventually } from '../../../../../test/eventually';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';
import { holdSharedCounters, SHARED_COUNTERS_WAIT_MS } from '../../../../../test/shared-counters-lock';

const LEGACY = `journey-map-legacy-${randomUUID()}`;

interface MapNode {
  id: string;
  kind: string;
  waiting: number | null;
  sent: number | null;
  humanOpened: number | null;
  humanClicked: number | null;
  converted: number | null;
}

describe('GET /v1/admin/journeys/{id}/map', () => {
  // exact deltas of first-project's shared counters: no other such file enrols people meanwhile
  let releaseCounters: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    releaseCounters = await holdSharedCounters('first-project');
  }, SHARED_COUNTERS_WAIT_MS);
  afterAll(async () => releaseCounters?.());
  let api: TestApi;
  let readKey: string;
  let ingestKey: string;

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    readKey = await issueApiKey(api, LEGACY, `map-read-${randomUUID()}`, ['read']);
    ingestKey = await issueApiKey(api, LEGACY, `map-ingest-${randomUUID()}`, ['ingest']);
  });
  afterAll(async () => api?.close());

  const mapOf = async (journeyId: string, query = '') => {
    const response = await api.request('GET', `/v1/admin/journeys/${journeyId}/map${query}`, { token: readKey });
    expect(response.status).toBe(200);
    return response.body.map as { version: string | null; untraceable: string | null; nodes: MapNode[]; edges: unknown[]; elsewhere: unknown[] };
  };
  const node = (nodes: MapNode[], id: string) => nodes.find((candidate) => candidate.id === id)!;

  /** Runs of a made-up version, so the numbers are exactly these whatever else ran in this database. */
  async function seedVersion(version: string): Promise<void> {
    const db = api.deps.db;
    const state = async (userId: string, currentNodeId: string, status: 'active' | 'waiting' | 'completed') => {
      const workflowId = `journey-welcome-series-${userId}`;
      const row = await db
        .insertInto('journeyStates')
        .values({
          journeyId: 'welcome-series',
          userId,
          userEmail: `${userId}@example.com`,
          currentNodeId,
          status,
          workflowId,
          context: {},
          journeyVersion: version,
        })
        .returning(['id', 'workflowId'])
        .executeTakeFirstOrThrow();
      return row;
    };
    const send = async (
      owner: { id: string; workflowId: string },
      templateKey: string,
      idempotencyKey: string,
      seen: { opened?: boolean; clicked?: boolean },
    ) =>
      db
        .insertInto('emailSends')
        .values({
          journeyStateId: owner.id,
          templateKey,
          fromEmail: 'from@example.com',
          toEmail: 'to@example.com',
          status: 'sent',
          idempotencyKey,
          data: {},
          sentAt: new Date(),
          humanOpenedAt: seen.opened ? new Date() : null,
          humanClickedAt: seen.clicked ? new Date() : null,
          // a machine open is not a person's
          openedAt: new Date(),
        })
        .execute();
    const a = await state(`map-a-${randomUUID()}`, 'sleep:2 days', 'waiting');
    const b = await state(`map-b-${randomUUID()}`, 'sleep:2 days', 'waiting');
    const c = await state(`map-c-${randomUUID()}`, 'nudge', 'completed');
    const d = await state(`map-d-${randomUUID()}`, 'retired-step', 'waiting');
    await send(a, 'welcome', `${a.workflowId}:welcome:1`, { opened: true, clicked: true });
    await send(b, 'welcome', `${b.workflowId}:welcome:1`, {});
    await send(c, 'welcome', `${c.workflowId}:welcome:1`, { opened: true });
    await send(c, 'welcome-getting-started', `${c.workflowId}:nudge:2`, { opened: true });
    // a dead-letter retry's key names no node: counted at the one node that sends the template
    await send(d, 'welcome', `dlq-retry:${randomUUID()}`, {});
  }

  it('draws welcome-series from its code with the chosen version’s waiting, sent and human opens and clicks per node', async () => {
    await seedVersion('map0001');
    const map = await mapOf('welcome-series', '?version=map0001');
    expect(map.version).toBe('map0001');
    expect(map.untraceable).toBeNull();
    expect(map.nodes.map((n) => n.id)).toEqual(['trigger', 'welcome', 'sleep:2 days', 'has?Has project.created since entry?', 'tips', 'end', 'nudge', 'exit']);
    expect(node(map.nodes, 'welcome')).toMatchObject({ kind: 'email', waiting: 0, sent: 4, humanOpened: 2, humanClicked: 1, converted: null });
    expect(node(map.nodes, 'sleep:2 days')).toMatchObject({ kind: 'sleep', waiting: 2, sent: null, humanOpened: null });
    expect(node(map.nodes, 'nudge')).toMatchObject({ sent: 1, humanOpened: 1, humanClicked: 0, waiting: 0 });
    expect(node(map.nodes, 'tips')).toMatchObject({ sent: 0 });
    expect(node(map.nodes, 'has?Has project.created since entry?')).toMatchObject({ kind: 'branch', waiting: null, sent: null });
    expect(map.elsewhere).toEqual([{ nodeId: 'retired-step', waiting: 1, sent: 0, humanOpened: 0, humanClicked: 0, converted: null }]);
    expect(map.edges).toContainEqual({ from: 'has?Has project.created since entry?', to: 'nudge', label: 'no', anyTime: false });
  });

  it('counts a real run under the deployment’s version by default', async () => {
    const userId = `map-run-${randomUUID()}`;
    expect(
      (await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.signed_up', userId, email: `${userId}@waymark-test.example` } })).status,
    ).toBe(202);
    const { version } = (await api.request('GET', '/v1/admin/journeys/welcome-series', { token: readKey })).body.journey as { version: string };
    const map = await eventually(
      () => mapOf('welcome-series'),
      (current) => (node(current.nodes, 'welcome').sent ?? 0) >= 1 && (node(current.nodes, 'sleep:2 days').waiting ?? 0) >= 1,
      { what: 'the welcome sent and the run asleep' },
    );
    expect(map.version).toBe(version);
    expect((await mapOf('welcome-series', '?version=unversioned')).version).toBeNull();
  });

  it('counts first-project’s treatment conversions at the nodes reached before the goal, and none for a journey without a goal', async () => {
    const treated = Array.from({ length: 50 }, () => `map-fp-${randomUUID()}`).find((id) => holdoutArm(firstProject, id)?.holdout === false)!;
    const user = { userId: treated, email: `${treated}@waymark-test.example` };
    const track = async (name: string) =>
      expect(
        (
          await api.request('POST', '/v1/events', {
            token: ingestKey,
            body: { name, ...user, eventProperties: { projectId: `p-${treated}`, name: 'Atlas' } },
          })
        ).status,
      ).toBe(202);
    const before = await mapOf('first-project');
    await track('project.created');
    await eventually(
      () => mapOf('first-project'),
      (current) => (node(current.nodes, 'sleep:2 days').waiting ?? 0) > (node(before.nodes, 'sleep:2 days').waiting ?? 0),
      { what: 'the run asleep after first-project-tips' },
    );
    await track('project.published');
    const after = await eventually(
      () => mapOf('first-project'),
      (current) => (node(current.nodes, 'first-project-tips').converted ?? 0) > (node(before.nodes, 'first-project-tips').converted ?? 0),
      { what: 'the conversion counted on the map' },
    );
    const gained = (id: string) => (node(after.nodes, id).converted ?? 0) - (node(before.nodes, id).converted ?? 0);
    expect([gained('trigger'), gained('first-project-tips'), gained('sleep:2 days'), gained('first-project-nudge')]).toEqual([1, 1, 1, 0]);
    expect(node(after.nodes, 'first-project-nudge').converted).not.toBeNull();
    expect(node((await mapOf('welcome-series')).nodes, 'welcome').converted).toBeNull();
  });

  it('answers 400 for a bad version, 404 for an unknown journey and 403 without the read scope', async () => {
    expect((await api.request('GET', '/v1/admin/journeys/welcome-series/map?version=DROP%20TABLE', { token: readKey })).status).toBe(400);
    const unknown = await api.request('GET', '/v1/admin/journeys/no-such-journey/map', { token: readKey });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'Journey not found' } });
    expect((await api.request('GET', '/v1/admin/journeys/welcome-series/map', { token: ingestKey })).status).toBe(403);
  });
});

import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { defineJourney, type Journey } from '@waymark/journey';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../../../test/email-emulator';
import { registerTestJourneys } from '../../../../test/journey-registry';
import { startTestApi, type TestApi } from '../../../../test/test-api';
import { seedTrackedSends } from '../../../../test/tracked-sends';

/**
 * The tracking events' way through the BATCHED ingest pipeline (ingestEvents behind the tracking
 * event queue), over HTTP against the real stack: each click / first open is stored, routed to
 * journeys, checked against exit rules and upserts the contact, even when many arrive at once.
 */
describe('tracking events through the batched ingest pipeline', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ API_PUBLIC_URL: 'https://track.waymark-test.example' });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(() => api?.close());

  /** Sent emails with one tracked link each, one user per send (as the bench seeds them). */
  async function seedSends(count: number, url = 'https://app.example.com/') {
    const run = randomUUID().slice(0, 8);
    const sends = await seedTrackedSends(
      api.deps.db,
      Array.from({ length: count }, (_, n) => ({ toEmail: `pipe-${run}-${n}@waymark-test.example`, userId: `u-pipe-${run}-${n}` })),
      url,
    );
    return sends.map((send) => ({ ...send, id: send.sendId, userId: send.userId! }));
  }

  /** Adds journeys to the running api's registry for one test (restored afterEach). */
  const registerJourneys = (extra: Journey[]) => registerTestJourneys(api, extra);

  it('a burst of concurrent clicks stores one email.link_clicked per click and moves every contact’s lastSeenAt', async () => {
    const sends = await seedSends(20);
    const before = new Date(Date.now() - 1_000);
    const clicks = sends.flatMap((send) => [send, send, send]);
    const responses = await Promise.all(clicks.map((send) => api.request('GET', `/v1/t/c/${send.linkId}`)));
    expect(responses.every((response) => response.status === 302 && response.headers.get('location') === 'https://app.example.com/')).toBe(true);

    const userIds = sends.map((send) => send.userId);
    const events = await waitFor(
      async () => {
        await api.deps.trackingEvents.drain();
        const rows = await api.deps.db.selectFrom('events').selectAll().where('userId', 'in', userIds).where('event', '=', 'email.link_clicked').execute();
        return rows.length >= clicks.length ? rows : undefined;
      },
      { what: `${clicks.length} email.link_clicked events` },
    );
    expect(events).toHaveLength(clicks.length);
    expect(new Set(events.map((event) => event.idempotencyKey)).size).toBe(clicks.length);
    expect(events.every((event) => event.source === 'tracking')).toBe(true);
    const first = sends[0]!;
    expect(events.filter((event) => event.userId === first.userId).map((event) => event.properties)).toEqual(
      Array.from({ length: 3 }, () => ({
        emailSendId: first.id,
        templateKey: 'welcome',
        linkUrl: 'https://app.example.com/',
        linkId: first.linkId,
        machine: false,
        machineReason: null,
      })),
    );

    const contacts = await api.deps.db.selectFrom('contacts').select(['externalId', 'email', 'lastSeenAt']).where('externalId', 'in', userIds).execute();
    expect(contacts).toHaveLength(sends.length);
    for (const contact of contacts) {
      expect(contact.email).toBe(sends.find((send) => send.userId === contact.externalId)!.toEmail);
      expect(contact.lastSeenAt.getTime()).toBeGreaterThan(before.getTime());
    }
    const parked = await api.deps.db
      .selectFrom('dlqEntries')
      .select('id')
      .where('source', '=', 'event')
      .where(sql<string>`payload ->> 'userId'`, '=', first.userId)
      .execute();
    expect(parked).toEqual([]);
  });

  it('an exitOn rule on email.link_clicked exits the user’s live state (its where evaluated on the click); a rule that does not match leaves it', async () => {
    const exitOnClick = defineJourney({
      id: `test-click-exit-${randomUUID().slice(0, 8)}`,
      name: 'Exits on a pricing click',
      description: 'test journey',
      trigger: { event: 'test.never' },
      exitOn: [{ event: 'email.link_clicked', where: [{ type: 'property', property: 'linkUrl', operator: 'eq', value: 'https://app.example.com/pricing' }] }],
      async run() {},
    });
    const exitOnOtherLink = defineJourney({
      id: `test-other-exit-${randomUUID().slice(0, 8)}`,
      name: 'Exits on another link',
      description: 'test journey',
      trigger: { event: 'test.never' },
      exitOn: [{ event: 'email.link_clicked', where: [{ type: 'property', property: 'linkUrl', operator: 'eq', value: 'https://app.example.com/other' }] }],
      async run() {},
    });
    registerJourneys([exitOnClick, exitOnOtherLink]);
    const [send] = await seedSends(1, 'https://app.example.com/pricing');
    const states = await api.deps.db
      .insertInto('journeyStates')
      .values(
        [exitOnClick, exitOnOtherLink].map((journey) => ({
          journeyId: journey.id,
          userId: send!.userId,
          userEmail: send!.toEmail,
          status: 'waiting' as const,
          workflowId: `journey:${journey.id}:${send!.userId}:${randomUUID()}`,
          currentNodeId: 'wait',
        })),
      )
      .returning(['id', 'journeyId'])
      .execute();

    expect((await api.request('GET', `/v1/t/c/${send!.linkId}`)).status).toBe(302);

    const exited = await waitFor(
      async () => {
        const row = await api.deps.db
          .selectFrom('journeyStates')
          .selectAll()
          .where('journeyId', '=', exitOnClick.id)
          .where('userId', '=', send!.userId)
          .executeTakeFirstOrThrow();
        return row.status === 'exited' ? row : undefined;
      },
      { what: 'the state exited by the click' },
    );
    expect(exited.exitedAt).toBeInstanceOf(Date);
    const event = await api.deps.db
      .selectFrom('events')
      .select('id')
      .where('userId', '=', send!.userId)
      .where('event', '=', 'email.link_clicked')
      .executeTakeFirstOrThrow();
    const logs = await api.deps.db.selectFrom('journeyLogs').select(['action', 'detail']).where('journeyStateId', '=', exited.id).execute();
    expect(logs).toEqual([{ action: 'exited', detail: { reason: 'exit_rule', event: 'email.link_clicked', eventId: event.id } }]);

    await api.deps.trackingEvents.drain();
    const other = await api.deps.db
      .selectFrom('journeyStates')
      .select('status')
      .where('id', '=', states.find((state) => state.journeyId === exitOnOtherLink.id)!.id)
      .executeTakeFirstOrThrow();
    expect(other.status).toBe('waiting');
  });

  it('a journey triggered by email.opened starts a real run on the first open (and only on the first)', async () => {
    const welcome = api.deps.journeys.get('welcome-series');
    const onOpen = { ...welcome, trigger: { event: 'email.opened' } } as Journey;
    const registry = api.deps.journeys;
    const triggeredBy = registry.triggeredBy.bind(registry);
    // the worker runs welcome-series' own code; only its trigger is borrowed for this test
    vi.spyOn(registry, 'triggeredBy').mockImplementation((name) => (name === 'email.opened' ? [onOpen] : triggeredBy(name)));
    const [send] = await seedSends(1);

    for (let n = 0; n < 3; n += 1) expect((await fetch(`${api.url}/v1/t/o/${send!.id}`)).status).toBe(200);

    const [state] = await waitFor(
      async () => {
        const rows = await api.deps.db
          .selectFrom('journeyStates')
          .selectAll()
          .where('journeyId', '=', 'welcome-series')
          .where('userId', '=', send!.userId)
          .execute();
        return rows.length > 0 ? rows : undefined;
      },
      { what: 'a welcome-series run started by email.opened', timeoutMs: 20_000 },
    );
    const opened = await api.deps.db.selectFrom('events').select('id').where('userId', '=', send!.userId).where('event', '=', 'email.opened').execute();
    expect(opened).toHaveLength(1);
    expect(state!.context).toMatchObject({ trigger: { event: 'email.opened', eventId: opened[0]!.id } });
    await api.deps.temporal.orchestrator.cancelRun(state!.workflowId);
  });
});

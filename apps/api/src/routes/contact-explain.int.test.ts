import { randomUUID } from 'node:crypto';
import type { Db } from '@waymark/core/db/database';
import { importSuppressions } from '@waymark/core/preferences/suppression-import';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../test/eventually';
import { journeyStatesOf } from '../../../../test/journey-states';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('GET /v1/admin/contacts/{id}/explain', () => {
  let api: TestApi;
  let ingestKey: string;
  let readKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'producer', ['ingest']);
    readKey = await issueApiKey(api, LEGACY, 'reader', ['read']);
  });
  afterAll(() => api.close());

  const send = (name: string, userId: string, eventProperties: Record<string, unknown> = {}) =>
    api.request('POST', '/v1/events', { token: ingestKey, body: { name, userId, email: `${userId}@example.com`, eventProperties } });
  const explain = async (userId: string, journeyId: string, templateKey?: string) => {
    const query = `journeyId=${journeyId}${templateKey === undefined ? '' : `&templateKey=${templateKey}`}`;
    const response = await api.request('GET', `/v1/admin/contacts/${userId}/explain?${query}`, { token: readKey });
    expect(response.status).toBe(200);
    return response.body.explanation;
  };

  /** A finished re-engagement run of this person, for log rows a real run reaches only days in. */
  const seedCompletedRun = (db: TestApi['deps']['db'], userId: string) =>
    db
      .insertInto('journeyStates')
      .values({
        journeyId: 're-engagement',
        userId,
        userEmail: `${userId}@example.com`,
        status: 'completed',
        workflowId: `journey:re-engagement:${userId}:seeded`,
        context: '{}',
      })
      .returning('id')
      .executeTakeFirstOrThrow();

  /** Journey log rows of `stateId`, one minute apart from `start`, as the run's steps write them. */
  const seedLogs = (db: TestApi['deps']['db'], stateId: string, start: Date, logs: [string, string, Record<string, unknown> | null][]) =>
    db
      .insertInto('journeyLogs')
      .values(
        logs.map(([node, action, detail], index) => ({
          journeyStateId: stateId,
          toNodeId: node,
          action,
          detail: detail === null ? null : JSON.stringify(detail),
          createdAt: new Date(start.getTime() + index * 60_000),
        })),
      )
      .execute();

  it('no enrollment: trigger event never received', async () => {
    const userId = `u-${randomUUID()}`;
    await send('page.viewed', userId);
    const story = await explain(userId, 'welcome-series', 'welcome');
    expect(story).toMatchObject({ enrollments: [], triggers: [], notEnrolled: 'trigger event never received (user.signed_up)' });
    expect(story.template).toEqual({ key: 'welcome', outcome: 'not sent: trigger event never received (user.signed_up)' });
  });

  it('no enrollment: trigger.where failed, naming the property and its value', async () => {
    const userId = `u-${randomUUID()}`;
    await send('trial.started', userId, { plan: 'free' });
    const story = await explain(userId, 'trial-conversion');
    expect(story.notEnrolled).toBe('trigger.where failed: plan = free');
    expect(story.triggers).toEqual([expect.objectContaining({ outcome: 'trigger.where failed: plan = free' })]);
  });

  it('sent, waiting until (from Temporal), exited by an event, then entry limit once already used', async () => {
    const userId = `u-${randomUUID()}`;
    await send('user.signed_up', userId, { firstName: 'Ada' });
    const [state] = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 'welcome-series'),
      (rows) => rows[0]?.status === 'waiting',
    );
    const waiting = await explain(userId, 'welcome-series', 'welcome');
    expect(waiting.enrollments).toHaveLength(1);
    expect(waiting.enrollments[0]).toMatchObject({ stateId: state!.id, status: 'waiting', now: expect.stringMatching(/^waiting until \d{4}-/) });
    expect(waiting.enrollments[0].steps.map((step: { outcome: string }) => step.outcome)).toEqual([
      'entered',
      'sent',
      expect.stringMatching(/^waiting until /),
    ]);
    expect(waiting.template.outcome).toMatch(/^sent \(/);
    const nudge = await explain(userId, 'welcome-series', 'welcome-getting-started');
    expect(nudge.template.outcome).toMatch(/^not sent yet: waiting until /);

    await send('user.deleted', userId);
    const exited = await explain(userId, 'welcome-series');
    expect(exited.enrollments[0].status).toBe('exited');
    expect(exited.enrollments[0].steps.at(-1).outcome).toMatch(/^exited by user\.deleted at \d{4}-/);
    expect(exited.enrollments[0].now).toBeUndefined();

    await send('user.signed_up', userId);
    const again = await eventually(
      () => explain(userId, 'welcome-series'),
      (story) => story.triggers.length === 2,
    );
    expect(again.triggers[0]).toMatchObject({ outcome: 'entered', stateId: state!.id });
    expect(again.triggers[1].outcome).toMatch(/^entry limit once already used on \d{4}-/);
  });

  it('names each send outcome the journey log records: unsubscribed from a category, suppress.hours, failed → DLQ, bounce-suppressed, duplicate', async () => {
    // the rows the send step writes (deliverJourneyEmail) for outcomes a real run reaches only days in
    const userId = `u-${randomUUID()}`;
    const email = `${userId}@example.com`;
    await send('page.viewed', userId);
    const db = api.deps.db;
    await db
      .insertInto('emailPreferences')
      .values({
        userId,
        email,
        bounceCount: 3,
        suppressed: true,
        suppressionReason: 'bounced',
        categories: JSON.stringify({ journey: true, marketing: false }),
      })
      .execute();
    const state = await seedCompletedRun(db, userId);
    const letter = await db
      .insertInto('dlqEntries')
      .values({ source: 'email', payload: JSON.stringify({ journeyStateId: state.id, templateKey: 'reengage-welcome-back' }), error: 'provider gave up' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const until = '2026-11-24T09:00:00.000Z';
    const logs: [string, string, Record<string, string> | null][] = [
      ['start', 'entered', null],
      ['reengage-we-miss-you', 'email_skipped', { templateKey: 'reengage-we-miss-you', reason: 'category_unsubscribed' }],
      ['reengage-welcome-back', 'waiting', { templateKey: 'reengage-welcome-back', reason: 'suppress_window', until }],
      ['reengage-welcome-back', 'email_failed', { templateKey: 'reengage-welcome-back', reason: 'provider gave up' }],
      ['last-call-email', 'email_skipped', { templateKey: 'reengage-last-call', reason: 'suppressed' }],
      ['last-call-email', 'email_skipped', { templateKey: 'reengage-last-call', reason: 'duplicate' }],
      ['last-call-email', 'completed', null],
    ];
    await seedLogs(db, state.id, new Date(Date.UTC(2026, 10, 23, 9)), logs);

    const story = await explain(userId, 're-engagement', 'reengage-welcome-back');
    expect(story.enrollments[0].steps.map((step: { outcome: string }) => step.outcome)).toEqual([
      'entered',
      'skipped: unsubscribed from marketing',
      `skipped: inside suppress.hours until ${until}`,
      `failed → DLQ ${letter.id}`,
      'skipped: bounce-suppressed',
      'skipped: duplicate',
      'completed',
    ]);
    expect(story.template.outcome).toBe(`failed → DLQ ${letter.id} (2026-11-23T09:03:00.000Z)`);
  });

  it("names a send held by quiet hours and a sleepUntilLocal on the recipient's clock", async () => {
    const userId = `u-${randomUUID()}`;
    await send('page.viewed', userId);
    const db = api.deps.db;
    const state = await seedCompletedRun(db, userId);
    const held = { reason: 'quiet_hours', until: '2026-12-01T07:00:00.000Z', localUntil: '2026-12-01T08:00+01:00', timeZone: 'Europe/Paris' };
    const logs: [string, string, Record<string, unknown> | null][] = [
      ['start', 'entered', null],
      ['reengage-we-miss-you', 'held', { ...held, templateKey: 'reengage-we-miss-you' }],
      ['reengage-we-miss-you', 'resumed', null],
      [
        'sleep-until:09:00',
        'waiting',
        { localTime: '09:00', until: '2026-12-02T14:00:00.000Z', localUntil: '2026-12-02T09:00-05:00', timeZone: 'America/New_York' },
      ],
    ];
    await seedLogs(db, state.id, new Date(Date.UTC(2026, 10, 30, 21)), logs);

    const story = await explain(userId, 're-engagement', 'reengage-we-miss-you');
    expect(story.enrollments[0].steps.map((step: { outcome: string }) => step.outcome)).toEqual([
      'entered',
      'held by quiet hours until 08:00 Europe/Paris (2026-12-01T08:00+01:00)',
      'resumed',
      'waiting until 09:00 America/New_York (2026-12-02T09:00-05:00)',
    ]);
    expect(story.template.outcome).toBe('held by quiet hours until 08:00 Europe/Paris (2026-12-01T08:00+01:00) (2026-11-30T21:01:00.000Z)');
  });

  it('reads the reason stored with the suppression: an imported bounce is bounce-suppressed, a manual suppression of a bouncing address is not', async () => {
    const skippedAs = async (suppress: (db: Db, userId: string, email: string) => Promise<unknown>) => {
      const userId = `u-${randomUUID()}`;
      const email = `${userId}@example.com`;
      await send('page.viewed', userId);
      const db = api.deps.db;
      await suppress(db, userId, email);
      const state = await seedCompletedRun(db, userId);
      await db
        .insertInto('journeyLogs')
        .values({
          journeyStateId: state.id,
          toNodeId: 'last-call-email',
          action: 'email_skipped',
          detail: JSON.stringify({ templateKey: 'reengage-last-call', reason: 'suppressed' }),
        })
        .execute();
      const response = await api.request('GET', `/v1/admin/contacts/${userId}/explain?journeyId=re-engagement&templateKey=reengage-last-call`, {
        token: LEGACY,
      });
      expect(response.status).toBe(200);
      return response.body.explanation.template.outcome as string;
    };
    // one bounce imported from the previous provider: under BOUNCE_THRESHOLD (3), yet a bounce
    const imported = await skippedAs((db, externalId, email) => importSuppressions(db, [{ email, externalId, reason: 'bounced' }]));
    expect(imported).toMatch(/^skipped: bounce-suppressed \(/);
    const manual = await skippedAs((db, userId, email) =>
      db.insertInto('emailPreferences').values({ userId, email, bounceCount: 5, suppressed: true, suppressionReason: 'manual' }).execute(),
    );
    expect(manual).toMatch(/^skipped: suppressed \(/);
  });

  it('journey disabled by an admin', async () => {
    const userId = `u-${randomUUID()}`;
    await send('page.viewed', userId);
    expect((await api.request('PATCH', '/v1/admin/journeys/payment-recovery', { token: LEGACY, body: { enabled: false } })).status).toBe(200);
    try {
      const story = await explain(userId, 'payment-recovery');
      expect(story).toMatchObject({ unavailable: 'journey disabled', notEnrolled: 'journey disabled', journey: { enabled: false } });
    } finally {
      await api.request('PATCH', '/v1/admin/journeys/payment-recovery', { token: LEGACY, body: { enabled: true } });
    }
  });

  it('journey not in ENABLED_JOURNEYS', async () => {
    const only = await startTestApi({ ADMIN_API_KEY: LEGACY, ENABLED_JOURNEYS: 'welcome-series' });
    try {
      const userId = `u-${randomUUID()}`;
      await send('page.viewed', userId);
      // first-project: a journey no test file disables (an override another file sets for a moment would answer 'journey disabled')
      const response = await only.request('GET', `/v1/admin/contacts/${userId}/explain?journeyId=first-project`, { token: LEGACY });
      expect(response.body.explanation).toMatchObject({ unavailable: 'journey not in ENABLED_JOURNEYS', notEnrolled: 'journey not in ENABLED_JOURNEYS' });
    } finally {
      await only.close();
    }
  });

  it('404 for an unknown contact or journey; 400 without journeyId', async () => {
    expect((await api.request('GET', `/v1/admin/contacts/nobody-${randomUUID()}/explain?journeyId=welcome-series`, { token: readKey })).status).toBe(404);
    const userId = `u-${randomUUID()}`;
    await send('page.viewed', userId);
    expect((await api.request('GET', `/v1/admin/contacts/${userId}/explain?journeyId=no-such-journey`, { token: readKey })).status).toBe(404);
    expect((await api.request('GET', `/v1/admin/contacts/${userId}/explain`, { token: readKey })).status).toBe(400);
  });
});

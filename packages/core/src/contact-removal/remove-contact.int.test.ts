import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliverJourneyEmail } from '../journeys/deliver-journey-email';
import { cancelRuns } from '../journeys/exit-states';
import { useEmailDeps } from '../../../../test/email-deps';
import { emailsTo, uniqueAddress } from '../../../../test/email-emulator';
import { seedJourneyEmailStep } from '../../../../test/journey-states';
import { deleteContact, eraseContact } from './remove-contact';

/**
 * docs/operations.md, "Contacts": the removal exits the person's live states in its own
 * transaction, so a run the cancellation never reached (Temporal down at the time) sends nothing
 * when it wakes. Against PostgreSQL and the SES emulator.
 */
describe("a removed contact's runs send nothing, cancelled or not", () => {
  const deps = useEmailDeps();

  it.each([
    { removal: 'delete', remove: deleteContact, reason: 'contact_deleted' },
    { removal: 'erasure', remove: eraseContact, reason: 'contact_erased' },
  ])('$removal: the state is exited ($reason), the run to cancel is named, and its next email is skipped as state_not_active', async ({ remove, reason }) => {
    const run = randomUUID();
    const userId = `removed-${run}`;
    const to = uniqueAddress('removed-run');
    await deps.db.insertInto('contacts').values({ externalId: userId, email: to }).execute();
    const step = await seedJourneyEmailStep(deps.db, { journeyId: 'welcome-series', userId, to, run });
    // another person's run is left alone
    const other = await seedJourneyEmailStep(deps.db, {
      journeyId: 'welcome-series',
      userId: `kept-${run}`,
      to: uniqueAddress('kept-run'),
      run: `kept-${run}`,
    });

    const removed = await remove(deps.db, userId);
    expect(removed.runsToCancel).toEqual([`wf-${run}`]);
    const statusOf = async (stateId: string) =>
      (await deps.db.selectFrom('journeyStates').select('status').where('id', '=', stateId).executeTakeFirstOrThrow()).status;
    expect(await statusOf(step.stateId)).toBe('exited');
    expect(await statusOf(other.stateId)).toBe('active');
    const log = await deps.db
      .selectFrom('journeyLogs')
      .select('detail')
      .where('journeyStateId', '=', step.stateId)
      .where('action', '=', 'exited')
      .executeTakeFirstOrThrow();
    expect(log.detail).toEqual({ reason });

    // Temporal unreachable: the cancellation is logged and given up, nothing thrown
    const warnings: object[] = [];
    const unreachable = { cancelRun: () => Promise.reject(new Error('14 UNAVAILABLE: connection refused')) };
    expect(await cancelRuns({ logger: { warn: (entry: object) => warnings.push(entry) }, orchestrator: unreachable }, removed.runsToCancel)).toBe(0);
    expect(warnings).toEqual([expect.objectContaining({ workflowId: `wf-${run}` })]);

    // the run wakes later and asks to send its next email: nothing goes out
    expect(await deliverJourneyEmail(deps.email, step)).toEqual({ status: 'skipped', reason: 'state_not_active' });
    expect(await emailsTo(to)).toHaveLength(0);
  });

  it.each([
    { removal: 'delete', remove: deleteContact },
    { removal: 'erasure', remove: eraseContact },
  ])("$removal: a journey start Temporal could not take before it is dropped, never to enrol them; another person's stays", async ({ remove }) => {
    const run = randomUUID();
    const userId = `kept-start-${run}`;
    const otherId = `other-start-${run}`;
    await deps.db
      .insertInto('contacts')
      .values({ externalId: userId, email: uniqueAddress('kept-start') })
      .execute();
    // a sign-up acknowledged while Temporal was down: the event and its start kept for the relay
    // (due in an hour, so no other test's relay carries it out meanwhile)
    const keptStart = async (user: string) => {
      const event = await deps.db
        .insertInto('events')
        .values({ userId: user, event: 'user.signed_up', properties: '{}' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await deps.db
        .insertInto('eventEffects')
        .values({
          eventId: event.id,
          seq: 1,
          kind: 'start',
          userId: user,
          journeyId: 'welcome-series',
          workflowId: null,
          lastError: 'Temporal unreachable',
          nextAttemptAt: new Date(Date.now() + 3_600_000),
        })
        .execute();
      return event.id;
    };
    const mine = await keptStart(userId);
    const theirs = await keptStart(otherId);
    const effectsOf = (eventId: string) => deps.db.selectFrom('eventEffects').select('kind').where('eventId', '=', eventId).execute();

    expect((await remove(deps.db, userId)).effectsDropped).toBe(1);
    expect(await effectsOf(mine)).toEqual([]);
    expect(await effectsOf(theirs)).toEqual([{ kind: 'start' }]);
    await deps.db.deleteFrom('eventEffects').where('eventId', '=', theirs).execute();
  });

  it("erasure takes the person's user ids out of stored simulation reports; the counts and other people's ids stay", async () => {
    const run = randomUUID();
    const userId = `simulated-${run}`;
    const address = uniqueAddress('simulated');
    await deps.db.insertInto('contacts').values({ externalId: userId, email: address }).execute();
    const samples = { 'sent:welcome': [userId, `other-${run}`], 'not_entered:suppressed': [address.toLowerCase()], 'status:waiting': [`other-${run}`] };
    const result = { journeyId: 'welcome-series', window: { since: '', until: '' }, report: { enrollments: 3, samples }, actual: {} };
    const job = await deps.db
      .insertInto('simulationJobs')
      .values({
        journeyId: 'welcome-series',
        windowSince: new Date(),
        windowUntil: new Date(),
        maxEnrollments: 10,
        status: 'completed',
        result: JSON.stringify(result),
      })
      .returning('id')
      .executeTakeFirstOrThrow();

    await eraseContact(deps.db, userId);
    const after = await deps.db.selectFrom('simulationJobs').select('result').where('id', '=', job.id).executeTakeFirstOrThrow();
    expect(after.result).toEqual({
      ...result,
      report: { enrollments: 3, samples: { 'sent:welcome': [`other-${run}`], 'not_entered:suppressed': [], 'status:waiting': [`other-${run}`] } },
    });
    await deps.db.deleteFrom('simulationJobs').where('id', '=', job.id).execute();
  });

  it("erasure deletes the person's parked work a retry would carry out on them again (an event, an email, a journey start); a delete and other people's entries keep theirs", async () => {
    const run = randomUUID();
    const userId = `parked-${run}`;
    const to = uniqueAddress('parked');
    const park = (payload: object) =>
      deps.db
        .insertInto('dlqEntries')
        .values({ source: 'event', sourceId: null, payload: JSON.stringify(payload), error: 'parked for the test' })
        .returning('id')
        .executeTakeFirstOrThrow();
    const parkedFor = async (user: string, address: string) => {
      const rows = [
        await park({ name: 'email.link_clicked', userId: user, eventProperties: {}, timestamp: new Date().toISOString(), idempotencyKey: randomUUID() }),
        await park({
          name: 'email.opened',
          email: address.toUpperCase(),
          eventProperties: {},
          timestamp: new Date().toISOString(),
          idempotencyKey: randomUUID(),
        }),
      ];
      rows.push(
        await deps.db
          .insertInto('dlqEntries')
          .values({
            source: 'email',
            sourceId: null,
            payload: JSON.stringify({ templateKey: 'welcome', to: address, userId: user }),
            error: 'parked for the test',
          })
          .returning('id')
          .executeTakeFirstOrThrow(),
        await deps.db
          .insertInto('dlqEntries')
          .values({
            source: 'journey',
            sourceId: randomUUID(),
            payload: JSON.stringify({ kind: 'journey-start', request: { journeyId: 'welcome-series', userId: user, userEmail: address } }),
            error: 'parked for the test',
          })
          .returning('id')
          .executeTakeFirstOrThrow(),
      );
      return rows.map((row) => row.id);
    };
    const remaining = async (ids: string[]) => (await deps.db.selectFrom('dlqEntries').select('id').where('id', 'in', ids).execute()).length;

    // an email-only contact (its user id is its address) and one with an external id
    await deps.db.insertInto('contacts').values({ externalId: userId, email: to }).execute();
    const mine = await parkedFor(userId, to);
    const someoneElse = await parkedFor(`kept-${run}`, uniqueAddress('kept-parked'));
    const erased = await eraseContact(deps.db, userId);
    expect(erased.parkedDeleted).toBe(4);
    expect(await remaining(mine)).toBe(0);
    expect(await remaining(someoneElse)).toBe(4);

    const deletedId = `deleted-${run}`;
    const deletedAddress = uniqueAddress('deleted-parked');
    await deps.db.insertInto('contacts').values({ externalId: deletedId, email: deletedAddress }).execute();
    const kept = await parkedFor(deletedId, deletedAddress);
    await deleteContact(deps.db, deletedId);
    expect(await remaining(kept)).toBe(4);
    await deps.db
      .deleteFrom('dlqEntries')
      .where('id', 'in', [...someoneElse, ...kept])
      .execute();
  });

  it("erasure keeps the person's journey records for the figures but not who they were; a delete keeps them as they are", async () => {
    const run = randomUUID();
    const seed = async (userId: string, to: string) => {
      await deps.db.insertInto('contacts').values({ externalId: userId, email: to }).execute();
      const trigger = { event: 'user.signed_up', eventId: randomUUID(), occurredAt: new Date().toISOString() };
      const context = JSON.stringify({ trigger, properties: { firstName: 'Ada', plan: 'pro' } });
      const state = await deps.db
        .insertInto('journeyStates')
        .values({
          journeyId: 'welcome-series',
          userId,
          userEmail: to,
          workflowId: `journey:welcome-series:${userId}:${trigger.eventId}`,
          context,
          status: 'failed',
          errorMessage: `550 5.1.1 <${to}>: mailbox unavailable`,
          holdout: false,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await deps.db
        .insertInto('journeyLogs')
        .values([
          { journeyStateId: state.id, fromNodeId: null, toNodeId: 'start', action: 'entered', detail: context },
          {
            journeyStateId: state.id,
            fromNodeId: 'welcome',
            toNodeId: 'welcome',
            action: 'email_failed',
            detail: JSON.stringify({ templateKey: 'welcome', reason: `MessageRejected: Email address is not verified: ${to}` }),
          },
          { journeyStateId: state.id, fromNodeId: 'welcome', toNodeId: 'welcome', action: 'failed', detail: JSON.stringify({ error: `550 5.1.1 <${to}>` }) },
        ])
        .execute();
      await deps.db.insertInto('journeyEntries').values({ journeyId: 'welcome-series', userId }).execute();
      return { stateId: state.id, trigger };
    };
    const recordsOf = async (stateId: string) => ({
      state: await deps.db
        .selectFrom('journeyStates')
        .select(['userId', 'workflowId', 'userEmail', 'context', 'errorMessage', 'status', 'holdout'])
        .where('id', '=', stateId)
        .executeTakeFirstOrThrow(),
      // one insert wrote them all at the same time: by action, so the order is fixed
      logs: await deps.db.selectFrom('journeyLogs').select(['action', 'detail']).where('journeyStateId', '=', stateId).orderBy('action').execute(),
    });
    const ledgerOf = (userId: string) => deps.db.selectFrom('journeyEntries').select('userId').where('userId', '=', userId).execute();

    const erasedId = `erased-${run}`;
    const erasedAddress = uniqueAddress('erased-records');
    const erased = await seed(erasedId, erasedAddress);
    const { runsToDelete } = await eraseContact(deps.db, erasedId);
    expect(runsToDelete).toEqual([`journey:welcome-series:${erasedId}:${erased.trigger.eventId}`]);
    const after = await recordsOf(erased.stateId);
    expect(after.state).toEqual({
      userId: `erased:${erased.stateId}`,
      workflowId: `erased:${erased.stateId}`,
      userEmail: '',
      context: { trigger: erased.trigger },
      errorMessage: '[erased]',
      status: 'failed',
      holdout: false,
    });
    expect(after.logs).toEqual([
      { action: 'email_failed', detail: { templateKey: 'welcome', reason: '[erased]' } },
      { action: 'entered', detail: { trigger: erased.trigger } },
      { action: 'failed', detail: { error: '[erased]' } },
    ]);
    expect(JSON.stringify(after)).not.toContain(erasedAddress);
    expect(JSON.stringify(after)).not.toContain('Ada');
    expect(JSON.stringify(after)).not.toContain(erasedId);
    expect(await ledgerOf(erasedId)).toEqual([]);

    const deletedId = `deleted-${run}`;
    const deleted = await seed(deletedId, uniqueAddress('deleted-records'));
    await deleteContact(deps.db, deletedId);
    expect((await recordsOf(deleted.stateId)).state).toMatchObject({ userId: deletedId, context: { properties: { firstName: 'Ada' } } });
    expect(await ledgerOf(deletedId)).toEqual([{ userId: deletedId }]);
  });

  it("erasure keeps the clicks and opens of the person's emails but not the address and user agent they came from; a delete keeps them", async () => {
    const run = randomUUID();
    const seed = async (userId: string, to: string) => {
      await deps.db.insertInto('contacts').values({ externalId: userId, email: to }).execute();
      const send = await deps.db
        .insertInto('emailSends')
        .values({
          templateKey: 'welcome',
          toEmail: to,
          fromEmail: 'noreply@waymark.local',
          userId,
          status: 'sent',
          sentAt: new Date(),
          idempotencyKey: `hits-${randomUUID()}`,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const link = await deps.db
        .insertInto('trackedLinks')
        .values({ emailSendId: send.id, originalUrl: 'https://app.example.com/' })
        .returning('id')
        .executeTakeFirstOrThrow();
      const hit = { ipAddress: '203.0.113.7', userAgent: 'Mozilla/5.0 (Ada’s laptop)' };
      await deps.db
        .insertInto('linkClicks')
        .values({ trackedLinkId: link.id, ...hit, machineReason: null, clickedAt: new Date() })
        .execute();
      await deps.db
        .insertInto('emailOpens')
        .values({ emailSendId: send.id, ...hit, machine: true, machineReason: 'apple_mpp', openedAt: new Date() })
        .execute();
      return { sendId: send.id, linkId: link.id };
    };
    const hitsOf = async ({ sendId, linkId }: { sendId: string; linkId: string }) => [
      ...(await deps.db.selectFrom('linkClicks').select(['ipAddress', 'userAgent', 'machine']).where('trackedLinkId', '=', linkId).execute()),
      ...(await deps.db.selectFrom('emailOpens').select(['ipAddress', 'userAgent', 'machine']).where('emailSendId', '=', sendId).execute()),
    ];

    const erasedId = `hits-erased-${run}`;
    const erased = await seed(erasedId, uniqueAddress('hits-erased'));
    const kept = await seed(`hits-kept-${run}`, uniqueAddress('hits-kept'));
    await eraseContact(deps.db, erasedId);
    expect(await hitsOf(erased)).toEqual([
      { ipAddress: null, userAgent: null, machine: false },
      { ipAddress: null, userAgent: null, machine: true },
    ]);
    expect(await hitsOf(kept)).toEqual([
      { ipAddress: '203.0.113.7', userAgent: 'Mozilla/5.0 (Ada’s laptop)', machine: false },
      { ipAddress: '203.0.113.7', userAgent: 'Mozilla/5.0 (Ada’s laptop)', machine: true },
    ]);

    const deletedId = `hits-deleted-${run}`;
    const deleted = await seed(deletedId, uniqueAddress('hits-deleted'));
    await deleteContact(deps.db, deletedId);
    expect((await hitsOf(deleted)).map((hit) => hit.ipAddress)).toEqual(['203.0.113.7', '203.0.113.7']);
  });
});

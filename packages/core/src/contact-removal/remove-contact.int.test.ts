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
});

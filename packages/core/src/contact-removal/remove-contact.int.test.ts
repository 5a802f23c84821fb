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
});

import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import type { ContactRow } from '../db/schema';
import { deletePreferencesKeepingSuppression } from '../contacts/address-suppressions';
import { getContact, ownUserIds } from '../contacts/contact';
import { deleteParkedWorkOf } from '../dlq/dead-letters';
import { eraseSendsOf } from '../emails/erase-sends';
import { dropEffectsOf } from '../events/event-effects';
import { forgetBatchUsersOf } from '../journeys/enroll-batch-users';
import { eraseRunsOf } from '../journeys/erase-runs';
import { forgetSimulationSamplesOf } from '../journeys/simulation-jobs';
import { markStatesExited } from '../journeys/exit-states';
import { LIVE_STATUSES } from '../journeys/live-statuses';
import { forgetHitsOf } from '../tracking/forget-hits';
import { forgetOutboundEventsOf } from '../webhooks/outbound/forget-outbound-events';

/** Why a removed contact's runs ended: the `reason` of their `exited` log row. */
export type RemovalReason = 'contact_deleted' | 'contact_erased';

export interface RemovedContact {
  contact: ContactRow;
  /**
   * The workflows of the runs whose states this removal exited, for the caller to cancel once the
   * removal has committed (`cancelRuns`). A run left uncancelled (Temporal unreachable) finds its
   * state exited when it wakes and ends without sending.
   */
  runsToCancel: string[];
  /**
   * the journey starts (and signals, exits) still kept for the person that the removal dropped,
   * with their places in batch enrollments not yet dispatched
   */
  effectsDropped: number;
}

/**
 * A removed person is in no journey: the live states of every user id the contact owns are exited
 * in the removal's own transaction, so no later step of theirs sends (the send reads its state
 * first), whether or not the cancellation reaches Temporal; and the removal drops their kept journey
 * effects (dropEffectsOf) and their places in batch enrollments still running (forgetBatchUsersOf),
 * so neither a start Temporal could not take before it nor a batch enrols them after it.
 */
async function dropPendingEntries(trx: Db, contact: ContactRow, userIds: RawBuilder<string[]>): Promise<number> {
  return (await dropEffectsOf(trx, userIds)) + (await forgetBatchUsersOf(trx, userIds, contact.email));
}

/** The live states of the contact's user ids, exited; answers their workflow ids (see dropPendingEntries). */
async function exitLiveRuns(trx: Db, contact: ContactRow, reason: RemovalReason): Promise<string[]> {
  const live = await trx
    .selectFrom('journeyStates')
    .select(['id', 'workflowId'])
    .where('userId', '=', sql<string>`any(${ownUserIds(contact)})`)
    .where('status', 'in', LIVE_STATUSES)
    .execute();
  if (live.length === 0) return [];
  const ids = live.map((state) => state.id);
  const exited = new Set((await markStatesExited(trx, ids, { reason })).map((state) => state.id));
  return live.filter((state) => exited.has(state.id)).map((state) => state.workflowId);
}

/**
 * Admin DELETE: the contact and its preferences, those keyed by each user id it owns (ownUserIds;
 * its suppression is kept by address); list memberships cascade; its live runs end.
 */
export async function deleteContact(db: Db, idOrExternalId: string): Promise<RemovedContact> {
  return db.transaction().execute(async (trx) => {
    const contact = await getContact(trx, idOrExternalId);
    await deletePreferencesKeepingSuppression(trx, contact);
    const runsToCancel = await exitLiveRuns(trx, contact, 'contact_deleted');
    const effectsDropped = await dropPendingEntries(trx, contact, ownUserIds(contact));
    await trx.deleteFrom('contacts').where('id', '=', contact.id).execute();
    return { contact, runsToCancel, effectsDropped };
  });
}

/**
 * Data-plane erasure request: the contact, its preferences and its event records, those keyed by
 * each user id it owns (ownUserIds: its external id, and its address, which email-only events carry,
 * unless another contact holds it; a suppression is kept as a hash of the address:
 * address-suppressions.ts); its live runs end, its journey records and its emails' clicks and opens
 * forget who it was (eraseRunsOf, forgetHitsOf, forgetSimulationSamplesOf; its runs' former workflow ids, for the caller to
 * delete from Temporal after the commit: `runsToDelete`), and its parked work that a retry would carry out on
 * the person again goes (deleteParkedWorkOf). Email send records stay as the delivery history an
 * operator keeps for bounces and complaints, without the template data they were rendered from, and
 * a send not yet made is cancelled (eraseSendsOf); the outbound webhook events about it that have
 * been delivered go (forgetOutboundEventsOf); list memberships cascade with the contact.
 */
export async function eraseContact(
  db: Db,
  idOrExternalId: string,
): Promise<
  RemovedContact & {
    /** the user ids the erasure reached (ownUserIds), for what the caller clears after the commit (the sources' cache) */
    userIds: string[];
    eventsDeleted: number;
    parkedDeleted: number;
    sendsErased: number;
    webhookEventsDeleted: number;
    runsToDelete: string[];
  }
> {
  return db.transaction().execute(async (trx) => {
    const contact = await getContact(trx, idOrExternalId);
    // read once, while the contact is still there to tell whether it owns its address
    const { rows } = await sql<{ userIds: string[] }>`select ${ownUserIds(contact)} as "userIds"`.execute(trx);
    const userIds = rows[0]?.userIds ?? [];
    const owned = sql<string[]>`${userIds}::text[]`;
    await deletePreferencesKeepingSuppression(trx, contact);
    const runsToCancel = await exitLiveRuns(trx, contact, 'contact_erased');
    const effectsDropped = await dropPendingEntries(trx, contact, owned);
    const events = await trx
      .deleteFrom('events')
      .where('userId', '=', sql<string>`any(${owned})`)
      .executeTakeFirst();
    const runsToDelete = await eraseRunsOf(trx, owned);
    await forgetSimulationSamplesOf(trx, owned);
    await forgetHitsOf(trx, owned);
    const sendsErased = await eraseSendsOf(trx, owned);
    const webhookEventsDeleted = await forgetOutboundEventsOf(trx, owned);
    const parkedDeleted = await deleteParkedWorkOf(trx, owned);
    await trx.deleteFrom('contacts').where('id', '=', contact.id).execute();
    return {
      contact,
      userIds,
      runsToCancel,
      effectsDropped,
      runsToDelete,
      eventsDeleted: Number(events.numDeletedRows),
      parkedDeleted,
      sendsErased,
      webhookEventsDeleted,
    };
  });
}

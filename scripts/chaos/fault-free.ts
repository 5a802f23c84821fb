import { sql } from 'kysely';
import type { Journey } from '@waymark/journey';
import type { Db } from '@waymark/core/db/database';
import { loadSimulationSubjects } from '@waymark/core/journeys/simulation-history';
import { simulateJourney } from '@waymark/temporal/simulation/simulate';
import { deploymentDeliveryPolicy } from '@waymark/runtime/runtime';

/**
 * The chaos run's yardstick: what each person should have got had nothing failed, against what SES
 * accepted and where each run stands. The fault-free outcome of a journey is `waymark simulate`'s
 * (the journey's own code on a virtual clock over the events the run stored); a broadcast's is
 * one email to each eligible contact of its audience snapshot.
 */

/** A message the SES emulator accepted, as the run's event publisher saw it. */
export interface AcceptedEmail {
  messageId: string;
  to: string;
  /** the `waymark_send_id` tag: the email_sends row it was sent for */
  sendId: string | undefined;
}

export interface FaultFreeComparison {
  /** person × journey (and broadcast recipients) compared */
  compared: number;
  /** emails the fault-free run sends */
  expected: number;
  /** emails the fault-free run sends that SES never accepted */
  lost: number;
  /** a second acceptance of one send id, or of one (recipient, template, journey or broadcast) under another send id */
  duplicates: number;
  /** each missing, extra or different email, or wrong journey outcome, as a line */
  differences: string[];
}

interface SendRow {
  id: string;
  templateKey: string;
  broadcastId: string | null;
  journeyId: string | null;
  userId: string | null;
}

/** `key` → count, for multiset comparisons. */
function tally(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

function multisetDifference(expected: readonly string[], actual: readonly string[]): { missing: string[]; extra: string[] } {
  const want = tally(expected);
  const got = tally(actual);
  const missing: string[] = [];
  const extra: string[] = [];
  for (const key of new Set([...want.keys(), ...got.keys()])) {
    const gap = (want.get(key) ?? 0) - (got.get(key) ?? 0);
    for (let i = 0; i < Math.abs(gap); i += 1) (gap > 0 ? missing : extra).push(key);
  }
  return { missing, extra };
}

export async function compareWithFaultFree(
  db: Db,
  input: { journeys: readonly Journey[]; since: Date; until: Date; broadcastIds: readonly string[]; accepted: readonly AcceptedEmail[] },
): Promise<FaultFreeComparison> {
  const sendIds = [...new Set(input.accepted.flatMap((email) => (email.sendId === undefined ? [] : [email.sendId])))];
  const rows =
    sendIds.length === 0
      ? []
      : (
          await sql<SendRow>`
            select s.id, s.template_key as "templateKey", s.broadcast_id as "broadcastId", j.journey_id as "journeyId", j.user_id as "userId"
            from email_sends s left join journey_states j on j.id = s.journey_state_id
            where s.id = any(${sendIds}::uuid[])`.execute(db)
        ).rows;
  const rowOf = new Map(rows.map((row) => [row.id, row]));

  // duplicates at SES: one send id accepted twice, or one email of one source accepted under two send ids
  let duplicates = input.accepted.length - new Set(input.accepted.map((email) => email.sendId ?? `untagged ${email.messageId}`)).size;
  const firstOf = new Map<string, AcceptedEmail>();
  for (const email of input.accepted) if (email.sendId !== undefined && !firstOf.has(email.sendId)) firstOf.set(email.sendId, email);
  const perEmail = new Map<string, Set<string>>();
  for (const [id, email] of firstOf) {
    const row = rowOf.get(id);
    if (row === undefined) continue;
    const key = `${email.to.toLowerCase()} ${row.templateKey} ${row.broadcastId ?? row.journeyId ?? 'other'}`;
    perEmail.set(key, (perEmail.get(key) ?? new Set()).add(id));
  }
  for (const ids of perEmail.values()) duplicates += ids.size - 1;

  const differences: string[] = [];
  let compared = 0;
  let lost = 0;
  let expectedEmails = 0;
  const policy = deploymentDeliveryPolicy();
  for (const journey of input.journeys) {
    const subjects = await loadSimulationSubjects(db, { journey, since: input.since, until: input.until, limit: 1_000_000 });
    if (subjects.length === 0) continue;
    const expected = new Map<string, { emails: string[]; status: string }>();
    await simulateJourney(journey, subjects, {
      until: input.until,
      policy,
      onEnrollment: ({ subject, run }) =>
        expected.set(subject.userId, { emails: run.sent.map((email) => email.templateKey), status: run.status ?? 'not entered' }),
    });
    // the virtual clock's runs enter at their trigger's instant; a run whose start waited out an
    // outage enters later, and an exit event stored before then exits it at its entry, nothing
    // sent (docs/operations.md, "What to expect of an outage"): that is its fault-free outcome
    const exitedAtEntry = await sql<{ userId: string }>`
      select s.user_id as "userId" from journey_states s
      join journey_logs entered on entered.journey_state_id = s.id and entered.action = 'entered'
      join journey_logs exited on exited.journey_state_id = s.id and exited.action = 'exited' and exited.detail ->> 'reason' = 'exit_rule'
      join events e on e.id = (exited.detail ->> 'eventId')::uuid
      where s.journey_id = ${journey.id} and s.user_id = any(${subjects.map((subject) => subject.userId)}::text[]) and e.created_at < entered.created_at`.execute(
      db,
    );
    for (const { userId } of exitedAtEntry.rows) expected.set(userId, { emails: [], status: 'exited' });
    const states = await db
      .selectFrom('journeyStates')
      .select(['userId', 'status'])
      .where('journeyId', '=', journey.id)
      .where(
        'userId',
        'in',
        subjects.map((subject) => subject.userId),
      )
      .execute();
    const statusOf = new Map<string, string[]>();
    for (const state of states) statusOf.set(state.userId, [...(statusOf.get(state.userId) ?? []), state.status]);
    const sentTo = new Map<string, string[]>();
    for (const id of firstOf.keys()) {
      const row = rowOf.get(id);
      if (row?.journeyId === journey.id && row.userId !== null) sentTo.set(row.userId, [...(sentTo.get(row.userId) ?? []), row.templateKey]);
    }
    for (const [userId, want] of expected) {
      compared += 1;
      expectedEmails += want.emails.length;
      const got = sentTo.get(userId) ?? [];
      const { missing, extra } = multisetDifference(want.emails, got);
      lost += missing.length;
      for (const template of missing) differences.push(`${journey.id} ${userId}: '${template}' not sent`);
      for (const template of extra) differences.push(`${journey.id} ${userId}: '${template}' sent, not in the fault-free run`);
      const status = (statusOf.get(userId) ?? ['not entered']).join(' + ');
      if (status !== want.status) differences.push(`${journey.id} ${userId}: ${status}, fault-free ${want.status}`);
    }
  }

  for (const broadcastId of input.broadcastIds) {
    const recipients = await db
      .selectFrom('broadcastRecipients')
      .select(['email', 'status'])
      .where('broadcastId', '=', broadcastId)
      .where('email', 'is not', null)
      .where('status', '!=', 'skipped')
      .execute();
    // one per send id: a send accepted twice is counted among the duplicates, not here
    const got = [...firstOf.values()].filter((email) => rowOf.get(email.sendId!)?.broadcastId === broadcastId);
    const { missing, extra } = multisetDifference(
      recipients.map((recipient) => recipient.email!.toLowerCase()),
      got.map((email) => email.to.toLowerCase()),
    );
    compared += recipients.length;
    expectedEmails += recipients.length;
    lost += missing.length;
    for (const to of missing) differences.push(`broadcast ${broadcastId} ${to}: not sent`);
    for (const to of extra) differences.push(`broadcast ${broadcastId} ${to}: sent twice or outside its audience`);
  }
  return { compared, expected: expectedEmails, lost, duplicates, differences };
}

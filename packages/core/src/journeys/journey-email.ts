import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';
import { checkSendGate } from '../preferences/send-gate';
import { recordJourneyStep } from './run-steps';

/** The input of the `sendJourneyEmail` activity (the email step of a journey). */
export interface SendJourneyEmailInput {
  stateId: string;
  journeyId: string;
  userId: string;
  userEmail: string;
  templateKey: string;
  nodeId: string;
  data: JsonObject;
  category: string;
  /** workflowId + nodeId + per-run step counter: stable across activity retries and replays */
  idempotencyKey: string;
  /** the journey's `suppress.hours`; enforced by the send path (issue 4) */
  suppressHours?: number;
}

export interface SendJourneyEmailResult {
  status: 'sent' | 'skipped' | 'failed';
  emailSendId?: string;
  reason?: string;
}

/**
 * Placeholder send: records the intended send as an email_sends row (status queued) and logs
 * `email_sent`, or logs `email_skipped` with the preference gate's reason. The real render +
 * SES send replaces this function behind the same activity signature.
 */
export async function recordJourneyEmail(deps: { db: Db; fromEmail: string }, input: SendJourneyEmailInput): Promise<SendJourneyEmailResult> {
  const { db } = deps;
  const previous = await db.selectFrom('emailSends').select('id').where('idempotencyKey', '=', input.idempotencyKey).executeTakeFirst();
  if (previous !== undefined) return { status: 'sent', emailSendId: previous.id };

  const state = await db.selectFrom('journeyStates').select('status').where('id', '=', input.stateId).executeTakeFirst();
  if (state === undefined || (state.status !== 'active' && state.status !== 'waiting')) {
    return { status: 'skipped', reason: 'state_not_active' };
  }
  const gate = await checkSendGate(db, input.userEmail, input.category);
  if (!gate.allowed) {
    const reason = gate.reason ?? 'suppressed';
    await recordJourneyStep(db, { stateId: input.stateId, toNodeId: input.nodeId, action: 'email_skipped', detail: { templateKey: input.templateKey, reason } });
    return { status: 'skipped', reason };
  }
  const inserted = await sql<{ id: string }>`
    insert into email_sends (journey_state_id, user_id, template_key, from_email, to_email, category, status, idempotency_key, data)
    values (${input.stateId}, ${input.userId}, ${input.templateKey}, ${deps.fromEmail}, ${input.userEmail}, ${input.category}, 'queued',
            ${input.idempotencyKey}, ${JSON.stringify(input.data)}::jsonb)
    on conflict (idempotency_key) do update set updated_at = email_sends.updated_at
    returning id`.execute(db);
  const emailSendId = inserted.rows[0]!.id;
  await recordJourneyStep(db, {
    stateId: input.stateId,
    toNodeId: input.nodeId,
    action: 'email_sent',
    detail: { templateKey: input.templateKey, emailSendId },
  });
  return { status: 'sent', emailSendId };
}

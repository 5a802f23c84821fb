import type { JsonObject } from '../db/schema';

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
  /** the journey's `suppress.hours`; enforced by the send path (docs/email.md) */
  suppressHours?: number;
  /** the person is in the journey's holdout: the step is logged `skipped` (reason `holdout`) and nothing is sent, unless the category is required */
  holdout?: boolean;
}

export interface SendJourneyEmailResult {
  status: 'sent' | 'skipped' | 'failed';
  emailSendId?: string;
  reason?: string;
}

import type { JsonObject } from '../db/schema';

// What a send is asked and what it answers, in a module of their own: the stages both senders
// compose (send-email.ts, send-email-batch.ts) name them without importing a sender.

export interface SendEmailInput {
  templateKey: string;
  to: string;
  data?: JsonObject;
  userId?: string | undefined;
  /** defaults to the template's category, else `journey` */
  category?: string | undefined;
  journeyStateId?: string | undefined;
  /** one email per key, ever: retries with the same key never send twice */
  idempotencyKey: string;
  /** journey `suppress.hours`; see suppress-window.ts and delivery/admit-sends.ts */
  suppressHours?: number | undefined;
  from?: string | undefined;
  /** provider failures allowed before the send fails for good (default 5) */
  maxAttempts?: number | undefined;
  /** the broadcast this email belongs to (docs/broadcasts.md): stored on the row, in its `email.*` events */
  broadcastId?: string | undefined;
  /** replaces the template's subject (a broadcast's or its variant's own subject) */
  subject?: string | undefined;
  /**
   * the recipient's language (the contact's `locale` property, BCP 47): the template's catalog
   * picks its messages by it, fr-CA → fr → the template's default (docs/email.md, "Languages")
   */
  locale?: string | undefined;
}

export type SendEmailResult =
  | { status: 'sent'; emailSendId: string }
  | { status: 'skipped'; emailSendId?: undefined; reason: string }
  /** `dropped`: an unknown delivery the delivery policy dropped (`unknown_dropped`, at most once), not parked in the DLQ */
  | { status: 'failed'; emailSendId: string; reason: string; dropped?: true }
  /**
   * inside the journey's suppress window (nothing was written), past the send rate's budget (the
   * row waits queued, its slot kept), or a delivery unknown waiting for its SES event: try again at `retryAt`
   */
  | { status: 'deferred'; emailSendId?: undefined; reason: string; retryAt: Date };
